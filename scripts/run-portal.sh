#!/usr/bin/env bash
# Serve GridPortal at http://127.0.0.1:8000 with a Celery worker beside it; Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
"$VENV/bin/celery" -A gridportal worker --loglevel INFO --concurrency "${WORKER_CONCURRENCY:-2}" &
WORKER=$!
# The sweeper: enqueues runs held while the broker was down or whose task message was lost
# (Redis restarted empty), re-queues runs whose worker died (asks the workers every 5 s).
"$VENV/bin/python" manage.py sweep_runs --every "${SWEEP_EVERY:-5}" &
SWEEPER=$!
trap 'kill $WORKER $SWEEPER 2>/dev/null; wait $WORKER $SWEEPER 2>/dev/null' EXIT INT TERM
echo "GridPortal: http://$HOST:$PORT/  (worker pid $WORKER; Ctrl-C stops both)"
# Heavy work of a request (plans, quotes, predictions, generated workflows, upload checks)
# runs in a child under GRIDPORTAL_WEB_*/UPLOAD_* limits; --max-requests recycles workers.
"$VENV/bin/gunicorn" gridportal.wsgi --bind "$HOST:$PORT" --workers 2 --threads 4 \
    --access-logfile - --timeout 120 --max-requests 2000 --max-requests-jitter 200
