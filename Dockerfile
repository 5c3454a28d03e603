# One image for all five Trawl services; the service is the command:
#   docker run … trawl:TAG gateway            (crawl-coordinator, fetch-worker, scheduler,
#   docker run … trawl:TAG migrate             webhook-dispatcher; `help` lists them)
# In Kubernetes: `args: ["gateway"]`. See deploy/image/README.md for the build and its proof.
#
# BASE_IMAGE is any Debian bookworm with Node 20 at /usr/local/bin, as the public Node image has it.
# Where no registry is reachable, deploy/image/build-base.sh makes one from Debian's packages.
ARG BASE_IMAGE=node:20-bookworm-slim

# ---- deps: every dependency, dev included (the compiler), from the lock file ----------------------
FROM ${BASE_IMAGE} AS deps
WORKDIR /src
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: npm 11 leaves @swc/core's other-platform binaries out of the lock and
# then refuses `npm ci` (see the Makefile); install still follows the lock for every package it has.
# Behind a TLS-intercepting proxy, pass its CA bundle as the optional build secret `npm_ca`
# (`--secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt`); a secret is not kept in any layer.
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm install --no-audit --no-fund --loglevel=error \
    && npm cache clean --force

# ---- build: the TypeScript compiler writes dist/ ----------------------------------------------------
FROM deps AS build
# All that tsconfig.build.json compiles; only dist/apps and dist/libs reach the runtime stage.
COPY tsconfig.json tsconfig.build.json ./
COPY tools ./tools
COPY libs ./libs
COPY apps ./apps
COPY bench ./bench
COPY test/fixtures ./test/fixtures
COPY test/support ./test/support
RUN npx tsc -p tsconfig.build.json

# ---- prod-deps: the same node_modules less devDependencies (no second download) ------------------
# Built from `deps`, not `build`, so it stays cached until package.json or the lock changes.
FROM deps AS prod-deps
# prune asks the registry for the other platforms' optional binaries the lock file leaves out (see
# above), so it needs the proxy's CA as much as install does: without it every ask is retried to
# failure (minutes, at no gain).
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm prune --omit=dev --no-audit --no-fund --loglevel=error \
    && rm -rf /root/.npm

# ---- runtime ---------------------------------------------------------------------------------------
FROM ${BASE_IMAGE} AS runtime
# Fonts for pages rendered by Chromium: Liberation (metric-compatible with Arial, Times New Roman and
# Courier New, so layouts measure as on the sites' own machines), Noto for other scripts (~42 MB), and
# colour emoji (~11 MB). CJK (fonts-noto-cjk) adds ~91 MB: add it here when tenants render such pages.
ARG FONT_PACKAGES="fonts-liberation fonts-noto-core fonts-noto-color-emoji"

# Debian's Chromium (puppeteer-core drives it; no browser download), tini to reap Chromium's helpers
# (an orphaned renderer or zygote is re-parented to PID 1, which must wait() for it), CA certificates
# for HTTPS targets and webhooks. No recommends: they pull GPU drivers, upower and printing.
# The user: a fixed numeric UID/GID so Kubernetes `runAsNonRoot` can check it without /etc/passwd.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
         chromium tini ca-certificates ${FONT_PACKAGES} \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/log/apt /var/log/dpkg.log \
    && groupadd --gid 10001 trawl \
    && useradd --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin trawl

WORKDIR /app
# Owned by root and not writable by the services: the code cannot be changed by what runs it.
COPY --from=prod-deps /src/node_modules ./node_modules
COPY package.json ./
COPY tools/register-aliases.js ./tools/register-aliases.js
COPY --from=build /src/dist/libs ./dist/libs
COPY --from=build /src/dist/apps ./dist/apps
COPY --chmod=0755 deploy/image/trawl.sh /usr/local/bin/trawl

# HTTP_HOST: the services listen on loopback by default (right for `make run` on a laptop); in a
# container nothing outside could reach /readyz or the API, so the image listens on every address.
# HOME and TMPDIR are /tmp, the one place that must be writable, so the chart can run with a read-only
# root file system and an emptyDir at /tmp: the fetch worker makes each browser's profile
# (--user-data-dir) and Chromium's temp files under os.tmpdir(), and Chromium writes ~/.pki there.
# CHROMIUM_PATH keeps the worker's default, Debian's wrapper /usr/bin/chromium.
ENV NODE_ENV=production \
    HTTP_HOST=0.0.0.0 \
    HOME=/tmp \
    TMPDIR=/tmp \
    CHROMIUM_PATH=/usr/bin/chromium

# gateway API 8080, its admin API and /metrics 8085 (ADMIN_PORT) and proxy mode 8001; /healthz,
# /readyz, /metrics of the others on 8081-8084 (their defaults; each reads PORT).
EXPOSE 8080 8085 8001 8081 8082 8083 8084

# Last, so that a new version, revision or date changes no layer above (an ARG's value is part of
# the cache key of every RUN after it).
ARG BASE_IMAGE
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="trawl" \
      org.opencontainers.image.description="Trawl, a self-hostable multi-tenant web-scraping platform: gateway, crawl-coordinator, fetch-worker, scheduler, webhook-dispatcher and migrate in one image" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.base.name="${BASE_IMAGE}"

USER 10001:10001
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/trawl"]
CMD ["help"]
