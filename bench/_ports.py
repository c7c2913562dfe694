"""A free TCP port for a server a test or bench starts (PostgreSQL, Redis, gunicorn, nginx,
Slurm), shared by all of them.

Picked at random *below* the kernel's ephemeral range (``net.ipv4.ip_local_port_range``),
where ``bind(("127.0.0.1", 0))`` never hands out ports: a port found free that way is closed
again before its server binds it, and in between another process's ``bind(0)`` or client
socket may take it — in a parallel test run a worker's private Redis once found a gunicorn of
another test on its port (Celery: "Connection closed by server").
"""

from __future__ import annotations

import random
import socket

_RANDOM = random.SystemRandom()
_LOWEST = 10_000


def _ephemeral_start() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 now, outside the ephemeral range."""
    top = _ephemeral_start()
    for _ in range(200):
        port = _RANDOM.randrange(_LOWEST, top) if top > _LOWEST + 1_000 else 0
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError("no free port found below the ephemeral range")
