"""GridPortal settings, every one from the environment (cookiecutter-django style).

Defaults give a working local portal on a fresh machine: SQLite under ``var/`` and an embedded
filesystem broker (kombu's ``filesystem://`` transport, queued work survives restarts).
Set ``DATABASE_URL`` (PostgreSQL) and ``CELERY_BROKER_URL`` (Redis) for real deployments.
``GRIDPORTAL_ENV=production`` turns DEBUG off, requires SECRET_KEY and secures cookies.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("GRIDPORTAL_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [v.strip() for v in os.environ.get(name, default).split(",") if v.strip()]


PRODUCTION = os.environ.get("GRIDPORTAL_ENV", "development") == "production"
DEBUG = env_bool("DEBUG", not PRODUCTION)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set when GRIDPORTAL_ENV=production")
    SECRET_KEY = "dev-only-insecure-key-change-me"  # noqa: S105 (never used in production)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "" if PRODUCTION else "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "3600"))
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
# SecurityMiddleware: nosniff and a referrer policy on every response, in every environment.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

# Content-Security-Policy on every response (django-csp): no inline script, no inline style, no
# other origin. Pages keep their JavaScript in static/js and their data in json_script blocks;
# charts download as PNG from the canvas (data:/blob: images). tests/browser/test_csp.py visits
# every page in Chromium and fails on any violation.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "axes",
    "gridportal.inputs",
    "gridportal.sites",
    "gridportal.experiments",
    "gridportal.quotas",
    "gridportal.web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # before whitenoise: static files carry the policy too
    "gridportal.uploads.UploadCapMiddleware",  # oversized bodies refused before being read
    "gridportal.querystrings.QueryStringMiddleware",  # NUL in a query string: 400, not a 500
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "gridportal.csp.ApiPagesInlineStyleMiddleware",  # the API's own HTML: inline style only
    "gridportal.web.auth_guard.LoginBusyMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as axes asks: lockouts become its 429 page
]

ROOT_URLCONF = "gridportal.urls"
WSGI_APPLICATION = "gridportal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'gridportal.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web and worker processes share one file: WAL lets readers and a writer coexist, and
    # IMMEDIATE transactions wait for the write lock instead of failing half-way.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }
    # A file (not :memory:) so that a worker process in the tests can share the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-gridportal.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---- Authentication and abuse (gridportal/web/auth_guard.py) ------------------------------
# Axes' check first: a locked-out name or client is refused before any password is hashed.
AUTHENTICATION_BACKENDS = [
    "gridportal.web.auth_guard.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
#: Longest password accepted anywhere (sign-up, login forms, token endpoint): refused unhashed.
GRIDPORTAL_PASSWORD_MAX_LENGTH = int(os.environ.get("GRIDPORTAL_PASSWORD_MAX_LENGTH", 128))
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "gridportal.web.passwords.MaximumLengthValidator"},
    {"NAME": "gridportal.web.passwords.NotOnlyWhitespaceValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "gridportal.web.passwords.CommonWordWithAffixesValidator"},
    {"NAME": "gridportal.web.passwords.ContextWordsValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Django's PBKDF2 (stored hashes unchanged) with at most GRIDPORTAL_HASH_CONCURRENCY hashes at
# once per process; another waits GRIDPORTAL_HASH_WAIT seconds, then gets a 503.
PASSWORD_HASHERS = [
    "gridportal.web.passwords.BoundedPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
GRIDPORTAL_HASH_CONCURRENCY = int(os.environ.get("GRIDPORTAL_HASH_CONCURRENCY", 1))
GRIDPORTAL_HASH_WAIT = float(os.environ.get("GRIDPORTAL_HASH_WAIT", 1.0))
# django-axes: AXES_FAILURE_LIMIT failed logins for one name, or from one client address,
# lock that name / address for AXES_COOLOFF_TIME (every way in: web, admin, token). Attempts
# during the lockout do not extend it. Staff unlock in the admin or with `manage.py axes_reset`.
AXES_FAILURE_LIMIT = int(os.environ.get("GRIDPORTAL_LOGIN_FAILURE_LIMIT", 5))
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("GRIDPORTAL_LOGIN_COOLOFF_MINUTES", 15)))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "gridportal.web.auth_guard.lockout_response"
AXES_CLIENT_IP_CALLABLE = "gridportal.web.auth_guard.client_ip"
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"  # shared by every web process
#: Proxies in front of the web processes that append to X-Forwarded-For (0: none, and the
#: header is ignored — a client could write it). Throttles and lockout key on this address.
GRIDPORTAL_NUM_PROXIES = int(os.environ.get("GRIDPORTAL_NUM_PROXIES", 0))
#: Per client address: logins (web and admin forms), token requests, sign-up attempts.
GRIDPORTAL_THROTTLE_RATES = {
    "login": os.environ.get("GRIDPORTAL_LOGIN_RATE", "20/min"),
    "auth-token": os.environ.get("GRIDPORTAL_TOKEN_RATE", "20/min"),
    "signup": os.environ.get("GRIDPORTAL_SIGNUP_RATE", "10/hour"),
}
# Throttle counters live in the cache, which every web process must share (gunicorn runs
# several): CACHE_URL (redis://…) when given, else the Redis of the Celery broker (the same
# database: the cache's keys are under KEY_PREFIX and clearing it removes only those), else the
# database (table gridportal_cache, made by migrate).  CACHE_URL=locmem:// counts per process.
_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
_REDIS_URLS = ("redis://", "rediss://", "unix://")
CACHE_URL = os.environ.get("CACHE_URL", "") or (
    _BROKER_URL if _BROKER_URL.startswith(_REDIS_URLS) else ""
)
GRIDPORTAL_CACHE_TABLE = "gridportal_cache"
if CACHE_URL.startswith(_REDIS_URLS):
    CACHES = {
        "default": {
            "BACKEND": "gridportal.cache.SharedRedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": os.environ.get("GRIDPORTAL_CACHE_PREFIX", "gridportal"),
        }
    }
elif CACHE_URL.startswith("locmem://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": GRIDPORTAL_CACHE_TABLE,
        }
    }

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Uploads: traces can be large (whole archive logs are ~100 MB uncompressed).
GRIDPORTAL_MAX_UPLOAD_BYTES = int(os.environ.get("GRIDPORTAL_MAX_UPLOAD_BYTES", 100 * 2**20))
#: Slurm accounting uploads larger than this are converted by a worker under a run's limits
#: ("converting…" on the traces page), not within the request (gridportal.inputs.sacct_imports).
GRIDPORTAL_SACCT_BACKGROUND_BYTES = int(
    os.environ.get("GRIDPORTAL_SACCT_BACKGROUND_BYTES", 2 * 2**20)
)
#: Such files of one user being converted at once (the next is refused until one is done).
GRIDPORTAL_SACCT_IMPORTS_AT_ONCE = int(os.environ.get("GRIDPORTAL_SACCT_IMPORTS_AT_ONCE", 2))
GRIDPORTAL_MAX_TRACE_BYTES = int(os.environ.get("GRIDPORTAL_MAX_TRACE_BYTES", 1024 * 2**20))
GRIDPORTAL_MAX_WORKFLOW_BYTES = int(os.environ.get("GRIDPORTAL_MAX_WORKFLOW_BYTES", 50 * 2**20))
#: Jobs in one trace: a small file of tiny lines must not become millions of jobs in memory.
GRIDPORTAL_MAX_TRACE_JOBS = int(os.environ.get("GRIDPORTAL_MAX_TRACE_JOBS", 2_000_000))
#: A gzip upload whose content is this many times larger than the file is refused (bombs).
GRIDPORTAL_MAX_GZIP_RATIO = int(os.environ.get("GRIDPORTAL_MAX_GZIP_RATIO", 100))
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 2**20
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 2**20
# Request bodies past the upload cap are refused from their Content-Length before being read,
# and an upload streamed without one stops being read at the cap (gridportal/uploads.py).
FILE_UPLOAD_HANDLERS = [
    "gridportal.uploads.CappedMemoryFileUploadHandler",
    "gridportal.uploads.CappedTemporaryFileUploadHandler",
]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON bodies: depth, integer digits and NaN/Infinity refused before parsing.
    "DEFAULT_PARSER_CLASSES": [
        "gridportal.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": GRIDPORTAL_THROTTLE_RATES,
    "NUM_PROXIES": GRIDPORTAL_NUM_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GridPortal API",
    "DESCRIPTION": "Workload traces, experiments and their results.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# Celery: Redis when CELERY_BROKER_URL is set, else kombu's filesystem transport under var/.
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
else:
    # Longer than the task time limit, so an unfinished run is never re-delivered by surprise.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 4 * 3600}
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("GRIDPORTAL_QUEUE", "gridportal")
CELERY_TASK_IGNORE_RESULT = True  # the Experiment row holds state and result
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
GRIDPORTAL_TASK_TIME_LIMIT = int(os.environ.get("GRIDPORTAL_TASK_TIME_LIMIT", 3 * 3600))

# Hard limits on work (gridportal/limits.py). A run's engine works in a child process
# of the worker: past RUN_MEMORY_MB of memory or RUN_TIME_LIMIT seconds it is killed and the run
# fails naming the limit (never re-delivered). Plans, quotes, predictions and generated
# workflows computed for a web request get WEB_TIME_LIMIT seconds and WEB_MEMORY_MB each.
GRIDPORTAL_RUN_MEMORY_MB = int(os.environ.get("GRIDPORTAL_RUN_MEMORY_MB", 4096))
GRIDPORTAL_RUN_TIME_LIMIT = int(os.environ.get("GRIDPORTAL_RUN_TIME_LIMIT", 3600))
GRIDPORTAL_WEB_MEMORY_MB = int(os.environ.get("GRIDPORTAL_WEB_MEMORY_MB", 1024))
GRIDPORTAL_WEB_TIME_LIMIT = float(os.environ.get("GRIDPORTAL_WEB_TIME_LIMIT", 25))
# A stored Result whose JSON text is larger is not rendered (page, CSV of a part, SVG): its
# summary is shown and its JSON offered as a download (gridportal/experiments/results.py).
# 16 MB: a line chart of 10^6 points (14 MB) renders in a 628 MiB child (bench/render_results.py).
GRIDPORTAL_RESULT_RENDER_MAX_MB = int(os.environ.get("GRIDPORTAL_RESULT_RENDER_MAX_MB", 16))
#: Heavy requests (those limited children) at once per web process; others wait this long,
#: then are refused: the remaining threads stay free for ordinary requests.
GRIDPORTAL_WEB_HEAVY_CONCURRENCY = int(os.environ.get("GRIDPORTAL_WEB_HEAVY_CONCURRENCY", 2))
GRIDPORTAL_WEB_HEAVY_WAIT = float(os.environ.get("GRIDPORTAL_WEB_HEAVY_WAIT", 2))
# Users' own scheduling policies (scheduler.policies), uploaded as inputs and run only in a
# bubblewrap sandbox (gridportal/sandbox.py): staff turn them off with GRIDPORTAL_USER_POLICIES=0.
# A sandboxed job (the upload check, or a whole run using a user policy) gets these hard limits:
# CPU seconds, wall seconds, memory (address space) and processes/threads.
GRIDPORTAL_USER_POLICIES = env_bool("GRIDPORTAL_USER_POLICIES", True)
GRIDPORTAL_SANDBOX_CPU_S = int(os.environ.get("GRIDPORTAL_SANDBOX_CPU_S", 1800))
GRIDPORTAL_SANDBOX_WALL_S = float(os.environ.get("GRIDPORTAL_SANDBOX_WALL_S", 2400))
GRIDPORTAL_SANDBOX_MEMORY_MB = int(os.environ.get("GRIDPORTAL_SANDBOX_MEMORY_MB", 2048))
GRIDPORTAL_SANDBOX_PROCESSES = int(os.environ.get("GRIDPORTAL_SANDBOX_PROCESSES", 16))
#: the upload check (compile, contract, dry run on a small generated trace)
GRIDPORTAL_SANDBOX_CHECK_S = float(os.environ.get("GRIDPORTAL_SANDBOX_CHECK_S", 60))
#: Checking an uploaded trace or workflow (parse and summary) happens under these limits.
GRIDPORTAL_UPLOAD_MEMORY_MB = int(os.environ.get("GRIDPORTAL_UPLOAD_MEMORY_MB", 2048))
GRIDPORTAL_UPLOAD_TIME_LIMIT = float(os.environ.get("GRIDPORTAL_UPLOAD_TIME_LIMIT", 25))
#: Zip uploads (run bundles, job-array results; gridportal/archives.py): checked from the
#: zip's directory before any member is read. A Result or another JSON document in them (and
#: so a stored result coming in) is at most MAX_RESULT_BYTES.
GRIDPORTAL_ARCHIVE_MAX_MEMBERS = int(os.environ.get("GRIDPORTAL_ARCHIVE_MAX_MEMBERS", 5000))
GRIDPORTAL_ARCHIVE_MAX_MEMBER_BYTES = int(
    os.environ.get("GRIDPORTAL_ARCHIVE_MAX_MEMBER_BYTES", 256 * 2**20)
)
GRIDPORTAL_ARCHIVE_MAX_TOTAL_BYTES = int(
    os.environ.get("GRIDPORTAL_ARCHIVE_MAX_TOTAL_BYTES", 512 * 2**20)
)
GRIDPORTAL_ARCHIVE_MAX_RATIO = int(os.environ.get("GRIDPORTAL_ARCHIVE_MAX_RATIO", 200))
GRIDPORTAL_MAX_RESULT_BYTES = int(os.environ.get("GRIDPORTAL_MAX_RESULT_BYTES", 16 * 2**20))
#: Run bundles (RO-Crate 1.1 + Process Run Crate 0.5, gridportal/experiments/bundles.py): the
#: licence under which a bundle's data are published (a URL; the root's ``license``), its name,
#: and the project's home page or public repository (the engine's ``url``, the publisher).
#: Set GRIDPORTAL_PROJECT_URL to the deployment's project page.
GRIDPORTAL_DATA_LICENSE = os.environ.get(
    "GRIDPORTAL_DATA_LICENSE", "https://creativecommons.org/licenses/by/4.0/"
)
GRIDPORTAL_DATA_LICENSE_NAME = os.environ.get(
    "GRIDPORTAL_DATA_LICENSE_NAME",
    "Creative Commons Attribution 4.0 International (CC BY 4.0)"
    if GRIDPORTAL_DATA_LICENSE == "https://creativecommons.org/licenses/by/4.0/"
    else GRIDPORTAL_DATA_LICENSE,
)
GRIDPORTAL_PROJECT_URL = os.environ.get("GRIDPORTAL_PROJECT_URL", "https://gridportal.example.org/")
#: Results uploaded from a Slurm job array: this fraction of an upload's runs (at least one,
#: chosen at random) is re-run on the workers and compared before the upload is accepted.
GRIDPORTAL_UPLOAD_RECHECK_FRACTION = float(
    os.environ.get("GRIDPORTAL_UPLOAD_RECHECK_FRACTION", 0.1)
)
#: Parsed traces and workflows a worker keeps for the next runs, in (estimated) MiB.
GRIDPORTAL_INPUT_CACHE_MB = int(os.environ.get("GRIDPORTAL_INPUT_CACHE_MB", 512))
#: Sweeper: seconds before a queued run with no live task message is enqueued again, and
#: before a running run no live worker reports is declared lost.
GRIDPORTAL_SWEEP_GRACE = float(os.environ.get("GRIDPORTAL_SWEEP_GRACE", 10))
# Per-user limits (staff override them per user in the admin: Quotas > User quotas; 0: none).
# Runs in flight (published to the workers or running) per user: runs past it wait in the
# database and are published as the user's runs finish, users taking turns, so one user's
# sweep never holds every worker slot. About the worker slots one user may fill at once.
GRIDPORTAL_USER_MAX_RUNNING = int(os.environ.get("GRIDPORTAL_USER_MAX_RUNNING", 8))
# Queued runs per user: a submit (a sweep) past it is refused, naming it.
GRIDPORTAL_USER_MAX_QUEUED = int(os.environ.get("GRIDPORTAL_USER_MAX_QUEUED", 1000))
# Bytes of traces, workflows and results a user stores; uploads and submits past it are refused.
GRIDPORTAL_USER_STORAGE_BYTES = int(os.environ.get("GRIDPORTAL_USER_STORAGE_BYTES", 10 * 2**30))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
