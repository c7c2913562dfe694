#!/usr/bin/env bash
# Run the whole test suite. PostgreSQL and Redis are used when DATABASE_URL / CELERY_BROKER_URL
# say so, or when they answer on their usual local ports; otherwise SQLite and the embedded
# broker are used and the tests that need the real services skip with a reason (never under CI).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
answers() { "$PY" - "$1" "$2" <<'PYEOF'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PYEOF
}
if [ -z "${DATABASE_URL:-}" ] && answers 127.0.0.1 5432; then
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/test
fi
if [ -z "${CELERY_BROKER_URL:-}" ] && answers 127.0.0.1 6379; then
    export CELERY_BROKER_URL=redis://127.0.0.1:6379/0
fi
# In parallel (pytest-xdist): PYTEST_WORKERS processes (default: cores + 2, as many tests wait
# on worker processes, a web server or the browser); the groups of XDIST_GROUPS in
# tests/conftest.py run on one process each (--dist loadgroup). PYTEST_WORKERS=0, or -n /
# -p no:xdist given here, leaves it to those.
parallel=(-n "${PYTEST_WORKERS:-$(($(nproc) + 2))}" --dist loadgroup)
for arg in "$@"; do
    case $arg in -n | -n* | --numprocesses* | no:xdist | -pno:xdist) parallel=() ;; esac
done
[ "${PYTEST_WORKERS:-}" = 0 ] && parallel=()
echo "tests: DATABASE_URL=${DATABASE_URL:-<SQLite>} CELERY_BROKER_URL=${CELERY_BROKER_URL:-<embedded>} CI=${CI:-} ${parallel[*]}"
exec "$PY" -m pytest "${parallel[@]}" "$@"
