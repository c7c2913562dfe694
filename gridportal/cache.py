"""The cache the web processes share (throttle counters): Redis beside the Celery broker.

Django's :class:`~django.core.cache.backends.redis.RedisCache` empties its whole Redis
database on ``clear()`` (``FLUSHDB``).  When the cache shares that database with the Celery
broker (the default: ``CELERY_BROKER_URL``'s Redis), that would drop the queued runs too, so
``clear()`` here deletes only the cache's own keys (those under its ``KEY_PREFIX``).
"""

from __future__ import annotations

import re

from django.core.cache.backends.redis import RedisCache


class SharedRedisCache(RedisCache):
    """Django's RedisCache whose ``clear()`` removes its own keys only (SCAN, then DEL)."""

    def clear(self) -> bool:
        client = self._cache.get_client(write=True)
        # Django's keys are "<KEY_PREFIX>:<version>:<key>" (its default KEY_FUNCTION)
        pattern = re.sub(r"([\\*?\[\]])", r"\\\1", self.key_prefix) + ":*"
        batch: list[bytes] = []
        for key in client.scan_iter(match=pattern, count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                client.delete(*batch)
                batch.clear()
        if batch:
            client.delete(*batch)
        return True
