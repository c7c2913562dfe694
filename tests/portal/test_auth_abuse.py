"""Login and sign-up resist abuse.

Lockout per name and per client on every way in (web form, admin form, token endpoint) with a
cool-off, throttled sign-up, look-alike and mixed-script names refused, weak and over-long
passwords refused (an over-long one without being hashed), one answer for every refused name,
a bounded number of concurrent password hashes, and the token endpoint's bounded JSON parser.

Hashes are counted by a subclass of the portal's own hasher (fewer iterations, so the tests
are quick): the counter sees every hash the portal computes, refused or not.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from rest_framework.test import APIClient

from gridportal.web import passwords
from gridportal.web.passwords import BoundedPBKDF2PasswordHasher

pytestmark = pytest.mark.django_db

RIGHT = "pw-Secret-123"  # the make_user fixture's password
LIMIT = 5


class CountingHasher(BoundedPBKDF2PasswordHasher):
    iterations = 2_000
    calls = 0

    def encode(self, password, salt, iterations=None):
        type(self).calls += 1
        return super().encode(password, salt, iterations)


@pytest.fixture(autouse=True)
def _auth_settings(settings):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    settings.GRIDPORTAL_SIGNUP = "on"
    cache.clear()  # throttle counters
    CountingHasher.calls = 0
    yield
    cache.clear()


@pytest.fixture
def staff(make_user):
    return make_user("boss", staff=True)


def web_login(client, username, password, ip="10.1.1.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def admin_login(client, username, password, ip="10.1.1.1"):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=ip,
    )


def token_login(username, password, ip="10.1.1.1", **kw):
    return APIClient().post(
        "/api/auth/token/", {"username": username, "password": password}, REMOTE_ADDR=ip, **kw
    )


PATHS = {
    # path: (login function, status of a refused wrong password, status when it works)
    "web": (lambda c, u, p, ip="10.1.1.1": web_login(c, u, p, ip), 200, 302),
    "admin": (lambda c, u, p, ip="10.1.1.1": admin_login(c, u, p, ip), 200, 302),
    "token": (lambda c, u, p, ip="10.1.1.1": token_login(u, p, ip), 400, 200),
}


# ---- lockout ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", PATHS)
def test_lockout_after_failures_then_cool_off(path, staff, client, settings):
    login, wrong_status, ok_status = PATHS[path]
    for i in range(1, LIMIT):
        assert login(client, "boss", f"wrong-{i}").status_code == wrong_status
    locked = login(client, "boss", "wrong-last")
    assert locked.status_code == 429, "the limit-th failure locks"
    text = locked.content.decode()
    assert "Too many failed log-in attempts" in text and "15 minutes" in text
    assert int(locked["Retry-After"]) == 15 * 60
    # the right password is refused while locked, and costs no hash
    hashes = CountingHasher.calls
    assert login(client, "boss", RIGHT).status_code == 429
    assert CountingHasher.calls == hashes
    # after the cool-off (shortened here, and waited for in real time) it works
    settings.AXES_COOLOFF_TIME = timedelta(seconds=1)
    time.sleep(1.2)
    assert login(client, "boss", RIGHT).status_code == ok_status


def test_lockout_is_per_name_across_addresses(alice, client):
    for i in range(LIMIT):
        web_login(client, "alice", f"wrong-{i}", ip=f"10.2.0.{i + 1}")
    # a fresh address, the right password: the name is locked
    assert web_login(client, "alice", RIGHT, ip="10.2.0.99").status_code == 429
    assert token_login("alice", RIGHT, ip="10.2.0.98").status_code == 429


def test_lockout_is_per_client_across_names(alice, bob, client):
    for i in range(LIMIT):
        web_login(client, f"guess{i}", "wrong", ip="10.3.0.1")
    # the locked address cannot log in even with a right pair; another address can
    assert web_login(client, "alice", RIGHT, ip="10.3.0.1").status_code == 429
    assert token_login("bob", RIGHT, ip="10.3.0.1").status_code == 429
    assert web_login(client, "alice", RIGHT, ip="10.3.0.2").status_code == 302


def test_lockout_is_shared_by_every_way_in(staff, client):
    web_login(client, "boss", "w1")
    admin_login(client, "boss", "w2")
    token_login("boss", "w3")
    web_login(client, "boss", "w4")
    assert token_login("boss", "w5").status_code == 429
    assert admin_login(client, "boss", RIGHT).status_code == 429


def test_lockout_answers_the_same_for_an_unknown_name(alice, client):
    for i in range(LIMIT):
        web_login(client, "alice", f"wrong-{i}", ip="10.4.0.1")
        web_login(client, "nobody-here", f"wrong-{i}", ip="10.4.0.2")
    known = web_login(client, "alice", "x", ip="10.4.0.1")
    unknown = web_login(client, "nobody-here", "x", ip="10.4.0.2")
    assert known.status_code == unknown.status_code == 429
    assert known.content == unknown.content
    a, b = token_login("alice", "x", ip="10.4.0.1"), token_login("nobody-here", "x", ip="10.4.0.2")
    assert a.status_code == b.status_code == 429 and a.json() == b.json()


def _page(resp, name: str) -> str:
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", resp.content.decode())
    return text.replace(name, "NAME")


def test_wrong_password_answers_the_same_for_an_unknown_name(alice, client):
    known = _page(web_login(client, "alice", "wrong", ip="10.5.0.1"), "alice")
    unknown = _page(web_login(client, "nobody-here", "wrong", ip="10.5.0.2"), "nobody-here")
    assert known == unknown
    a, b = token_login("alice", "wrong"), token_login("nobody-here", "wrong")
    assert a.status_code == b.status_code == 400 and a.json() == b.json()


def test_staff_unlock_with_axes_reset(alice, client):
    for i in range(LIMIT):
        web_login(client, "alice", f"wrong-{i}")
    assert web_login(client, "alice", RIGHT).status_code == 429
    call_command("axes_reset_username", "alice", stdout=open("/dev/null", "w"))
    call_command("axes_reset_ip", "10.1.1.1", stdout=open("/dev/null", "w"))
    assert web_login(client, "alice", RIGHT).status_code == 302


def test_access_attempts_are_in_the_admin(staff, client, admin_client):
    web_login(client, "boss", "wrong")
    page = admin_client.get("/admin/axes/accessattempt/")
    assert page.status_code == 200 and "boss" in page.content.decode()


# ---- throttles -------------------------------------------------------------------------------


def test_token_endpoint_is_throttled_per_client(alice, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    rates = {**ScopedRateThrottle.THROTTLE_RATES, "auth-token": "3/min"}
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)
    codes = [token_login("alice", RIGHT, ip="10.6.0.1").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert token_login("alice", RIGHT, ip="10.6.0.2").status_code == 200


def signup(client, username, password, ip="10.7.0.1", password2=None):
    return client.post(
        "/signup/",
        {"username": username, "password1": password, "password2": password2 or password},
        REMOTE_ADDR=ip,
    )


def test_signup_is_throttled_per_client(client, settings):
    from rest_framework.settings import api_settings

    rate = api_settings.DEFAULT_THROTTLE_RATES["signup"]
    allowed = int(rate.split("/")[0])
    for i in range(allowed):  # refused attempts count too: the form is not a free oracle
        assert signup(client, f"probe{i}", "a", password2="b").status_code == 200
    refused = signup(client, "probe-last", "pw-Long-Secret-77")
    assert refused.status_code == 429 and "Too many attempts" in refused.content.decode()
    assert not get_user_model().objects.filter(username="probe-last").exists()
    # another client is not held back
    assert signup(client, "fresh-one", "pw-Long-Secret-77", ip="10.7.0.2").status_code == 302


def test_web_and_admin_logins_are_throttled_per_client(alice, staff, monkeypatch):
    from django.test import Client

    from gridportal.web.auth_guard import ClientThrottle

    monkeypatch.setattr(ClientThrottle, "THROTTLE_RATES", {"login": "3/min"})
    assert web_login(Client(), "alice", RIGHT, ip="10.8.0.1").status_code == 302
    assert web_login(Client(), "alice", RIGHT, ip="10.8.0.1").status_code == 302
    assert admin_login(Client(), "boss", RIGHT, ip="10.8.0.1").status_code == 302
    third = admin_login(Client(), "boss", RIGHT, ip="10.8.0.1")
    assert third.status_code == 429 and int(third["Retry-After"]) > 0
    assert web_login(Client(), "alice", RIGHT, ip="10.8.0.1").status_code == 429
    assert web_login(Client(), "alice", RIGHT, ip="10.8.0.2").status_code == 302


# ---- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize("lookalike", ["demо", "аdmin", "stαff_r"])  # Cyrillic о, а; Greek α
def test_lookalike_names_are_refused(lookalike, make_user, client):
    for name in ("demo", "admin", "staff_r"):
        make_user(name)
    resp = signup(client, lookalike, "pw-Long-Secret-77")
    assert resp.status_code == 200
    assert not get_user_model().objects.filter(username=lookalike).exists()


@pytest.mark.parametrize(
    "existing,new",
    [("alice", "Alice"), ("alice", "a1ice"), ("alice", "aIice"), ("ace", "асе"), ("bob", "b0b")],
)
def test_same_skeleton_names_are_refused(existing, new, make_user, client):
    make_user(existing)
    resp = signup(client, new, "pw-Long-Secret-77")
    assert resp.status_code == 200 and "This name cannot be used" in resp.content.decode()
    assert not get_user_model().objects.filter(username=new).exists()


def test_mixed_script_name_is_refused_even_without_a_twin(client):
    resp = signup(client, "pаypal", "pw-Long-Secret-77")  # Cyrillic а, no "paypal" exists
    assert resp.status_code == 200 and "one alphabet" in resp.content.decode()
    assert not get_user_model().objects.filter(username="pаypal").exists()


@pytest.mark.parametrize("name", ["иван", "山田たろう", "maría"])
def test_single_script_names_are_welcome(name, client):
    assert signup(client, name, "pw-Long-Secret-77").status_code == 302


def _username_errors(resp) -> str:
    form = resp.context["form"]
    return str(form.errors.get("username"))


def test_refused_names_read_the_same(make_user, client):
    """A taken name, a look-alike of one and a reserved one get one answer (no enumeration)."""
    make_user("alice")
    answers = set()
    for name in ("alice", "a1ice", "admin"):
        resp = signup(client, name, "pw-Long-Secret-77")
        assert resp.status_code == 200
        answers.add(_username_errors(resp))
    assert len(answers) == 1 and "This name cannot be used" in answers.pop()


def test_staff_creating_a_lookalike_in_the_admin_is_refused(make_user, admin_client):
    make_user("demo")
    resp = admin_client.post(
        "/admin/auth/user/add/",
        {
            "username": "demо",
            "password1": "pw-Long-Secret-77",
            "password2": "pw-Long-Secret-77",
            "usable_password": "true",
        },
    )
    assert resp.status_code == 200
    assert not get_user_model().objects.filter(username="demо").exists()


# ---- passwords -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "password,why",
    [
        (" " * 8, "only spaces"),
        ("gridportal", "portal's name"),
        ("Gridportal-2025!", "portal's name"),
        ("demo-grid", "demo password"),
        ("Summer2024", "common word with numbers"),
        ("Winter2023!", "common word with numbers"),
        ("password", "too common"),
        ("84736251", "entirely numeric"),
        ("Xy7#", "too short"),
        ("newcomer-1", "too similar"),
        ("x" * 129, "at most 128"),
    ],
)
def test_weak_passwords_are_refused(password, why, client):
    resp = signup(client, "newcomer", password)
    assert resp.status_code == 200, why
    assert why in resp.content.decode().replace("&#x27;", "'"), why
    assert not get_user_model().objects.filter(username="newcomer").exists()


def test_the_demo_account_still_seeds_and_logs_in(media_root):
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    assert token_login("demo", "demo-grid").status_code == 200


def test_a_strong_password_is_accepted(client):
    assert signup(client, "newcomer", "correct horse battery").status_code == 302


# ---- hashing cost ----------------------------------------------------------------------------


def test_over_long_passwords_are_refused_without_hashing(alice, staff, client):
    huge = "p" * 100_000
    CountingHasher.calls = 0  # (the users' own passwords were hashed when they were made)
    assert web_login(client, "alice", huge).status_code == 200
    assert admin_login(client, "boss", huge).status_code == 200
    resp = token_login("alice", huge)
    assert resp.status_code == 400 and "password" in resp.json()
    assert signup(client, "newcomer", huge).status_code == 200
    assert CountingHasher.calls == 0, "an over-long password was hashed"
    # the counter does see a hash: a wrong password of ordinary length costs one
    web_login(client, "alice", "wrong-but-short")
    assert CountingHasher.calls >= 1


def test_saturated_hashing_answers_503_without_queueing(alice, staff, client, settings):
    settings.GRIDPORTAL_HASH_WAIT = 0.05
    gate = passwords.hash_gate()
    held = 0
    while gate.acquire(blocking=False):  # every slot taken, as by concurrent logins
        held += 1
    try:
        calls = CountingHasher.calls
        t0 = time.monotonic()
        api = token_login("alice", RIGHT)
        web = web_login(client, "alice", RIGHT)
        adm = admin_login(client, "boss", RIGHT)
        assert time.monotonic() - t0 < 5
        assert api.status_code == 503 and "try again" in api.json()["detail"]
        assert api["Retry-After"]
        assert web.status_code == 503 and "try again" in web.content.decode()
        assert adm.status_code == 503
        assert CountingHasher.calls == calls + 3  # entered encode, refused before hashing
    finally:
        for _ in range(held):
            gate.release()
    # a busy refusal is not a failed login: nothing is counted against the name
    from axes.models import AccessAttempt

    assert not AccessAttempt.objects.exists()
    assert web_login(client, "alice", RIGHT).status_code == 302


# ---- the token endpoint's parser ---------------------------------------------------------------


def test_token_request_nested_deep_is_a_400(alice):
    body = '{"username": ' + "[" * 100_000 + "]" * 100_000 + ', "password": "x"}'
    resp = APIClient().post("/api/auth/token/", body, content_type="application/json")
    assert resp.status_code == 400 and "JSON parse error" in resp.json()["detail"]


def test_token_request_json_works(alice):
    resp = APIClient().post(
        "/api/auth/token/", {"username": "alice", "password": RIGHT}, format="json"
    )
    assert resp.status_code == 200 and resp.json()["token"]


def test_the_product_hashes_passwords_at_djangos_full_cost():
    """The tests make their users with a cheaper PBKDF2 (tests/passwords.py); the product, as
    a server process loads it, hashes with Django's own iterations and the bounded hasher."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    from tests.conftest import ROOT

    probe = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
        "'gridportal.settings'); django.setup(); "
        "from django.contrib.auth.hashers import get_hasher, make_password; "
        "h = get_hasher(); print(type(h).__name__, make_password('x-Secret-123'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    name, encoded = done.stdout.split()[-2:]
    assert name == "BoundedPBKDF2PasswordHasher"
    assert encoded.startswith(f"pbkdf2_sha256${PBKDF2PasswordHasher.iterations}$")
    assert PBKDF2PasswordHasher.iterations >= 1_000_000
