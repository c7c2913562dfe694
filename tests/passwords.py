"""The password hasher of the tests' own process (tests/conftest.py puts it first).

Django's default PBKDF2 work, 1,000,000 iterations, costs 0.5 s of CPU per user made or
password checked — about a sixth of the suite's CPU time.  The test users' passwords are
hashed with fewer iterations by the product's own hasher class and algorithm name, so a
server process a test starts (gunicorn, a worker) checks them with its own settings (and
re-hashes them at its own cost on a login, as it would an old hash).  The product's
iterations are checked by tests/portal/test_auth_abuse.py (which makes its own hasher)."""

from __future__ import annotations

from gridportal.web.passwords import BoundedPBKDF2PasswordHasher

ITERATIONS = 1_000


class TestPasswordHasher(BoundedPBKDF2PasswordHasher):
    iterations = ITERATIONS
