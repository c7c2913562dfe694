# GridPortal image for docker compose: the web (gunicorn), worker (celery) and sweeper services.
FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && mkdir -p /out && cp node_modules/chart.js/dist/chart.umd.min.js /out/

# The engine's compiled modules (setup.py NATIVE_MODULES, issue 21), built with gcc in a stage
# of their own so that the image carries no compiler; the pure Python runs if they are absent.
FROM python:3.11-slim-bookworm AS native
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements-dev.txt ./
RUN pip install --no-cache-dir "$(grep -i '^cython==' requirements-dev.txt)" "setuptools>=64"
COPY setup.py pyproject.toml ./
COPY scheduler scheduler
RUN find scheduler -name '*.so' -delete \
    && GRIDPORTAL_NATIVE_REQUIRED=1 python setup.py -q build_ext --inplace \
    && mkdir /out && find scheduler -name '*.so' -exec cp --parents {} /out \;

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 GRIDPORTAL_VAR_DIR=/data
WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
COPY --from=assets /out/chart.umd.min.js static/vendor/chart.umd.min.js
COPY --from=native /out/ ./
# bytecode compiled once at build (PYTHONDONTWRITEBYTECODE stops the running user writing it):
# otherwise every `python -m scheduler` command recompiles the engine, ~0.05 s CPU each (issue 21)
RUN python -m compileall -q scheduler gridportal
# /srv/static: collectstatic's output, a volume shared with nginx (docker-compose.yml)
RUN useradd --create-home gridportal && mkdir -p /data /srv/static \
    && chown gridportal /data /srv/static
USER gridportal
EXPOSE 8000
CMD ["gunicorn", "gridportal.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4"]
