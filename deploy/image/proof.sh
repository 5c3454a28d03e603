#!/usr/bin/env bash
# Proof of the root Dockerfile on a machine that reaches Debian's mirror and the npm registry but no
# image registry: builds a bookworm + Node 20 base from Debian's packages (build-base.sh), builds the
# image on it with podman, checks the image, then runs `trawl migrate`, the gateway and a fetch worker
# from it against loopback Postgres and NATS and asks the gateway for one page rendered by Chromium,
# with the tenant made through the admin API on the gateway's admin listener (ADMIN_PORT), which the
# API port must not serve.
# Exits non-zero on any failure; removes its containers, database, streams and processes in any case.
#
# Environment: TRAWL_IMAGE_CACHE, TRAWL_IMAGE_STORAGE_DRIVER (see engine.sh), DATABASE_HOST_URL
# (postgres://postgres@127.0.0.1:5432), NATS_URL (nats://127.0.0.1:4222).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT_DIR="$PWD"
HERE="$ROOT_DIR/deploy/image"

DB_BASE_URL="${DATABASE_HOST_URL:-postgres://postgres@127.0.0.1:5432}"
NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
RUN_ID="$(date +%s)$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
PREFIX="imgproof${RUN_ID}"
DB_NAME="trawl_imgproof_${RUN_ID}"
IMAGE="localhost/trawl:proof"
ADMIN_TOKEN="image-proof-admin-token-${RUN_ID}"
LOG_DIR="$ROOT_DIR/test-output/image-proof"  # this run's logs, replaced by the next run's
GW="trawl-proof-gateway-$RUN_ID"
WK="trawl-proof-worker-$RUN_ID"
MARKER="rendered-by-script-42"
rm -rf "$LOG_DIR" && mkdir -p "$LOG_DIR"

T_START=$(date +%s%N)
log() { printf '[image-proof] %s\n' "$*"; }
fail() { printf '[image-proof] FAILED: %s\n' "$*" >&2; exit 1; }
STEP_LABEL=image-proof STEP_VERDICT="" STEP_WIDTH=34
# shellcheck source=../timed-steps.sh
source "$HERE/../timed-steps.sh"

# shellcheck source=engine.sh
source "$HERE/engine.sh"

# ---- clean-up, on success and failure alike ----------------------------------------------------------
SITE_PID=""
STREAMS_USED=""
DB_USED=""
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  if [ $rc -ne 0 ]; then
    [ -n "$STEP" ] && log "step failed: $STEP"
    for c in "$GW" "$WK"; do
      pm container exists "$c" 2>/dev/null && { log "last lines of $c:"; pm logs --tail 15 "$c" 2>&1 | sed 's/^/    /'; }
    done
    log "logs: $LOG_DIR"
  fi
  for c in "$GW" "$WK"; do
    pm container exists "$c" 2>/dev/null && { pm logs "$c" >"$LOG_DIR/${c%-"$RUN_ID"}.log" 2>&1; pm rm -f -t 5 "$c" >/dev/null 2>&1; }
  done
  pm rm -f "trawl-proof-migrate-$RUN_ID" "trawl-proof-nats-$RUN_ID" >/dev/null 2>&1
  [ -n "$SITE_PID" ] && kill "$SITE_PID" 2>/dev/null && wait "$SITE_PID" 2>/dev/null
  if [ -n "$STREAMS_USED" ]; then
    pm run --rm --name "trawl-proof-nats-$RUN_ID" --network host "${ULIMITS[@]}" --entrypoint node \
      -v "$HERE/nats-cleanup.js:/proof/nats-cleanup.js:ro" -e NODE_PATH=/app/node_modules \
      "$IMAGE" /proof/nats-cleanup.js "$NATS_URL" "$PREFIX" 2>&1 | sed 's/^/[image-proof] nats: /'
  fi
  [ -n "$DB_USED" ] && psql "$DB_BASE_URL/postgres" -qAtc "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE)" 2>&1 | sed 's/^/[image-proof] db: /'
  # Cached layers of builds superseded more than a day ago; the current chain stays for the next run.
  prune_images
  if pm ps -a --format '{{.Names}}' 2>/dev/null | grep -q "$RUN_ID"; then log "WARNING: containers of this run remain"; rc=1; fi
  printf '[image-proof] %-34s %6.1f s\n' "total" "$(( ($(date +%s%N) - T_START) / 1000000 ))e-3"
  [ $rc -eq 0 ] && echo "image proof: passed" || echo "image proof: FAILED (logs in test-output/image-proof)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. what the machine needs -----------------------------------------------------------------------
install_tools() {
  install_image_tools
  ./tools/ensure-services.sh
}
timed "tools and services" install_tools

# ---- 2. the base: bookworm + Node 20 from Debian's packages -------------------------------------------
timed "base image (debootstrap, import)" import_base "$LOG_DIR"
log "base: $BASE_IMAGE"

# ---- 3. the Dockerfile --------------------------------------------------------------------------------
timed "image build (podman, $IMAGE_DRIVER)" build_trawl_image "$IMAGE" "$LOG_DIR"
log "image: $IMAGE, $(pm image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"

# ---- 4. what the image is ----------------------------------------------------------------------------
check_image() {
  local user labels out
  user="$(pm image inspect --format '{{.Config.User}}' "$IMAGE")"
  [ "$user" = "10001:10001" ] || fail "image user is '$user', not 10001:10001"
  labels="$(pm image inspect --format '{{json .Config.Labels}}' "$IMAGE")"
  for l in title description version revision created base.name; do
    grep -q "\"org.opencontainers.image.$l\"" <<<"$labels" || fail "label org.opencontainers.image.$l missing"
  done
  out="$(pm run --rm --network host "${ULIMITS[@]}" --read-only --entrypoint sh "$IMAGE" -c '
    echo "uid=$(id -u) gid=$(id -g)"
    echo "node=$(node --version)"
    echo "chromium=$(/usr/lib/chromium/chromium --version)"
    for p in typescript jest eslint @swc/core @nestjs/testing ts-node; do [ -e "/app/node_modules/$p" ] && echo "devdep=$p"; done
    [ -x /usr/bin/tini ] && echo tini=ok
    [ -w /app ] && echo app=writable
    exit 0')"
  printf '%s\n' "$out" | sed 's/^/[image-proof]   /'
  grep -qx 'uid=10001 gid=10001' <<<"$out" || fail "does not run as 10001:10001"
  grep -q '^node=v20\.' <<<"$out" || fail "node is not v20"
  grep -q '^chromium=Chromium ' <<<"$out" || fail "no Chromium"
  grep -q '^tini=ok' <<<"$out" || fail "no tini"
  ! grep -q '^devdep=' <<<"$out" || fail "devDependencies in the image: $(grep '^devdep=' <<<"$out" | tr '\n' ' ')"
  ! grep -q '^app=writable' <<<"$out" || fail "/app is writable by the service user"
}
timed "image checks" check_image

# ---- 5. migrate, then the gateway and a fetch worker --------------------------------------------------
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
DATABASE_URL="$DB_BASE_URL/$DB_NAME"
migrate() {
  DB_USED=1
  pm run --rm --name "trawl-proof-migrate-$RUN_ID" --network host "${ULIMITS[@]}" --read-only \
    -e DATABASE_URL="$DATABASE_URL" "$IMAGE" migrate >"$LOG_DIR/migrate.log" 2>&1 || { cat "$LOG_DIR/migrate.log" >&2; return 1; }
  grep -q 'migrations applied' "$LOG_DIR/migrate.log" || { cat "$LOG_DIR/migrate.log" >&2; return 1; }
}
timed "trawl migrate" migrate

SITE_PORT_FILE="$LOG_DIR/site.port"
node "$HERE/fixture-site.js" >"$SITE_PORT_FILE" &
SITE_PID=$!
GW_PORT="$(free_port)"
GW_ADMIN_PORT="$(free_port)"
WK_PORT="$(free_port)"
HOST_MAP="proof.test=127.0.0.1"

# As a pod would run them (see README.md): read-only root file system with a writable /tmp (the
# chart's emptyDir), no capabilities, no privilege gain. Host network, so HTTP_HOST stays on loopback
# here (the image's own default is 0.0.0.0, right in a pod's network namespace).
run_service() {
  local name="$1" service="$2" port="$3"
  shift 3
  pm run -d --name "$name" --network host "${ULIMITS[@]}" \
    --read-only --read-only-tmpfs=false --tmpfs /tmp:rw,mode=1777,size=1g \
    --cap-drop=all --security-opt no-new-privileges \
    -e HTTP_HOST=127.0.0.1 -e PORT="$port" -e NATS_URL="$NATS_URL" -e NATS_PREFIX="$PREFIX" \
    -e EGRESS_HOST_MAP="$HOST_MAP" -e SHUTDOWN_TIMEOUT_MS=5000 "$@" "$IMAGE" "$service" >/dev/null
}
wait_ready() {
  local name="$1" port="$2" deadline=$(( $(date +%s) + 90 ))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; do
    [ "$(pm inspect --format '{{.State.Running}}' "$name" 2>/dev/null)" = true ] || fail "$name exited"
    [ "$(date +%s)" -lt "$deadline" ] || fail "$name not ready on :$port/readyz within 90 s"
    sleep 0.2
  done
}
start_services() {
  STREAMS_USED=1
  # Host network: the admin listener (default 8085) gets a free port like the API's, on loopback too
  # (ADMIN_HOST defaults to HTTP_HOST).
  run_service "$GW" gateway "$GW_PORT" -e DATABASE_URL="$DATABASE_URL" -e ADMIN_TOKEN="$ADMIN_TOKEN" -e PROXY_MODE_PORT=0 \
    -e ADMIN_PORT="$GW_ADMIN_PORT"
  run_service "$WK" fetch-worker "$WK_PORT" -e BROWSERS=1 -e BATCH_CONCURRENCY=0
  wait_ready "$GW" "$GW_PORT"
  wait_ready "$GW" "$GW_ADMIN_PORT"
  wait_ready "$WK" "$WK_PORT"
}
timed "gateway + fetch worker /readyz" start_services

# ---- 6. one page rendered by Chromium in the image ---------------------------------------------------
for _ in $(seq 1 50); do [ -s "$SITE_PORT_FILE" ] && break; sleep 0.1; done
SITE_PORT="$(head -n1 "$SITE_PORT_FILE")"
[ -n "$SITE_PORT" ] || fail "the fixture site did not start"
# The API port serves neither the admin API nor /metrics, so that an Ingress in front of it cannot
# expose them: 404 even with the admin token.
check_api_port() {
  local path status
  for path in /admin/v1/tenants /metrics; do
    status="$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $ADMIN_TOKEN" "http://127.0.0.1:$GW_PORT$path")"
    [ "$status" = 404 ] || fail "the API port answered $status to GET $path, not 404"
  done
}
timed "API port: no /admin/v1, /metrics" check_api_port

fetch_rendered() {
  local tenant key status
  tenant="$(curl -sS -X POST "http://127.0.0.1:$GW_ADMIN_PORT/admin/v1/tenants" -H "authorization: Bearer $ADMIN_TOKEN" \
    -H 'content-type: application/json' -d '{"name": "image-proof"}')"
  key="$(node -e 'const t=JSON.parse(process.argv[1]); if(!t.api_key) throw new Error(process.argv[1]); console.log(t.api_key)' "$tenant")"
  status="$(curl -sS -o "$LOG_DIR/rendered.html" -w '%{http_code}' --max-time 120 \
    "http://127.0.0.1:$GW_PORT/v1/?apikey=$key&js_render=true&url=http%3A%2F%2Fproof.test%3A$SITE_PORT%2F")"
  [ "$status" = 200 ] || fail "Fetch with js_render=true answered $status: $(head -c 400 "$LOG_DIR/rendered.html")"
  grep -q "$MARKER" "$LOG_DIR/rendered.html" || fail "the answer lacks the text the page's script writes: $(head -c 400 "$LOG_DIR/rendered.html")"
}
timed "Fetch js_render=true via gateway" fetch_rendered

# ---- 7. the running worker: tini is PID 1, the service runs as 10001, Chromium's helpers are reaped ----
check_running() {
  local out
  out="$(pm exec "$WK" sh -c '
    echo "pid1=$(tr "\0" " " </proc/1/cmdline)"
    echo "uid=$(id -u)"
    z=0; c=0
    for s in /proc/[0-9]*/stat; do
      st=$(cut -d" " -f3 "$s" 2>/dev/null) || continue
      [ "$st" = Z ] && z=$((z+1))
      grep -q chromium "${s%/stat}/cmdline" 2>/dev/null && c=$((c+1))
    done
    echo "zombies=$z chromium_processes=$c"')"
  printf '%s\n' "$out" | sed 's/^/[image-proof]   /'
  grep -q '^pid1=/usr/bin/tini -- /usr/local/bin/trawl fetch-worker' <<<"$out" || fail "PID 1 is not tini"
  grep -qx 'uid=10001' <<<"$out" || fail "the worker does not run as 10001"
  grep -q 'zombies=0 ' <<<"$out" || fail "zombie processes in the worker container"
  grep -q 'chromium_processes=[1-9]' <<<"$out" || fail "no Chromium process in the worker container"
}
timed "running worker checks" check_running

# ---- 8. SIGTERM through tini: both stop cleanly ------------------------------------------------------
stop_services() {
  local c code pids=()
  for c in "$GW" "$WK"; do pm stop -t 20 "$c" >/dev/null & pids+=($!); done
  wait "${pids[@]}"
  for c in "$GW" "$WK"; do
    code="$(pm inspect --format '{{.State.ExitCode}}' "$c")"
    [ "$code" = 0 ] || fail "$c exited with $code after SIGTERM"
  done
}
timed "SIGTERM, graceful stop" stop_services
log "OK: the image builds, migrates, serves /readyz and renders a page with Chromium"
