# GridPortal image for docker compose: the web (gunicorn) and worker (celery) services.
FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && mkdir -p /out && cp node_modules/chart.js/dist/chart.umd.min.js /out/

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 GRIDPORTAL_VAR_DIR=/data
WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
COPY --from=assets /out/chart.umd.min.js static/vendor/chart.umd.min.js
# bytecode compiled once at build (PYTHONDONTWRITEBYTECODE stops the running user writing it):
# otherwise every `python -m scheduler` command recompiles the engine, ~0.05 s CPU each (issue 21)
RUN python -m compileall -q scheduler gridportal
RUN useradd --create-home gridportal && mkdir -p /data && chown gridportal /data
USER gridportal
EXPOSE 8000
CMD ["gunicorn", "gridportal.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4"]
