#!/usr/bin/env bash
# The cluster proof: the chart on a real single-node Kubernetes (kube-node: kubelet, containerd,
# runc, kube-proxy), with pods really running the images built here. See README.md beside this file.
#   1. images (images.sh): Trawl, Postgres, NATS, the test web; tagged after their image IDs
#   2. the node (kube-node's start-node.sh), images streamed into its containerd unless already there
#   3. the steps (proof/main.ts, compiled by `make build`): each prints its time and verdict
#   4. always: the node stopped, logs and the report in test-output/cluster-proof/
# Exits non-zero on any failure. Needs root, the kube-node tool (KUBE_NODE_TOOL, default
# ../shared/tools/kube-node beside the repository) and `make build` done.
#
# Environment: CLUSTER_PROOF_KEEP (non-empty: leave the node running at the end, to look around),
# TRAWL_CLUSTER_CACHE (default /var/cache/trawl-cluster: the node's folder, whose containerd store
# keeps the images between runs, so an unchanged image is not imported again), KUBE_NODE_TOOL, and the image
# proof's TRAWL_IMAGE_CACHE / TRAWL_IMAGE_STORAGE_DRIVER (deploy/image/engine.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT_DIR="$PWD"
CACHE="${TRAWL_CLUSTER_CACHE:-/var/cache/trawl-cluster}"
KUBE_NODE_TOOL="${KUBE_NODE_TOOL:-$ROOT_DIR/../shared/tools/kube-node}"
# Short: containerd's socket path lives under it and must stay under ~100 characters.
NODE_DIR="$CACHE/node"
export NETNS=trawlproof HOST_PORT=17444
LOG_DIR="$ROOT_DIR/test-output/cluster-proof"
rm -rf "$LOG_DIR" && mkdir -p "$LOG_DIR"

T_START=$(date +%s%N)
log() { printf '[cluster-proof] %s\n' "$*"; }
STEP_LABEL=cluster-proof STEP_VERDICT=passed STEP_WIDTH=40
# shellcheck source=../timed-steps.sh
source deploy/timed-steps.sh

[ "$(id -u)" = 0 ] || { log "needs root (the node runs containerd and a kubelet)"; exit 1; }
[ -x "$KUBE_NODE_TOOL/start-node.sh" ] || { log "no kube-node tool at $KUBE_NODE_TOOL (set KUBE_NODE_TOOL)"; exit 1; }
[ -f "$ROOT_DIR/dist/deploy/cluster/proof/main.js" ] || { log "run make build first (dist/deploy/cluster/proof/main.js is missing)"; exit 1; }

NODE_STARTED=""
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  [ $rc -ne 0 ] && [ -n "$STEP" ] && printf '[cluster-proof] %-40s FAILED\n' "$STEP"
  if [ -n "$NODE_STARTED" ]; then
    if [ $rc -ne 0 ]; then
      KUBECONFIG="$NODE_DIR/kubeconfig" "$TOOLS/kubectl" get pods -A -o wide >"$LOG_DIR/pods.txt" 2>&1
      KUBECONFIG="$NODE_DIR/kubeconfig" "$TOOLS/kubectl" get events -A --sort-by=.lastTimestamp >"$LOG_DIR/events.txt" 2>&1
      for pod in $(KUBECONFIG="$NODE_DIR/kubeconfig" "$TOOLS/kubectl" get pods -n trawl -o name 2>/dev/null); do
        KUBECONFIG="$NODE_DIR/kubeconfig" "$TOOLS/kubectl" -n trawl logs "$pod" --all-containers --tail=200 >"$LOG_DIR/${pod#pod/}.log" 2>&1
      done
      log "pods, events and the release's logs: $LOG_DIR"
    fi
    cp -r "$NODE_DIR/logs" "$LOG_DIR/node-logs" 2>/dev/null
    if [ -n "${CLUSTER_PROOF_KEEP:-}" ]; then
      log "node kept (CLUSTER_PROOF_KEEP): KUBECONFIG=$NODE_DIR/kubeconfig; stop with $KUBE_NODE_TOOL/stop-node.sh $NODE_DIR"
    else
      "$KUBE_NODE_TOOL/stop-node.sh" "$NODE_DIR" >"$LOG_DIR/stop-node.log" 2>&1
    fi
  fi
  printf '[cluster-proof] %-40s %6.1f s\n' "total" "$(( ($(date +%s%N) - T_START) / 1000000 ))e-3"
  [ $rc -eq 0 ] && echo "cluster proof: passed" || echo "cluster proof: FAILED (report and logs in test-output/cluster-proof)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. tools and images ----------------------------------------------------------------------------
TOOLS="$(tools/deploy-tools.sh)"
build_images() {
  bash deploy/cluster/images.sh "$LOG_DIR" >"$LOG_DIR/images.txt"
}
timed "images (Trawl, Postgres, NATS, test web)" build_images
ref_of() { awk -v n="$1" '$1 == n {print $2}' "$LOG_DIR/images.txt"; }
TRAWL_IMAGE="$(ref_of trawl)"
# The upgrade's "new image tag": the same image under a second tag, so every Deployment rolls.
TRAWL_IMAGE_NEXT="$TRAWL_IMAGE-next"
log "images: $(awk '{print $2}' "$LOG_DIR/images.txt" | tr '\n' ' ')"

# ---- 2. the node ------------------------------------------------------------------------------------
start_node() {
  # A node left running by an interrupted run holds the namespace: stop it first.
  [ -e "/run/netns/$NETNS" ] && "$KUBE_NODE_TOOL/stop-node.sh" "$NODE_DIR" >/dev/null 2>&1
  NODE_STARTED=1
  "$KUBE_NODE_TOOL/start-node.sh" "$NODE_DIR" >"$LOG_DIR/start-node.log" 2>&1 || { tail -n 20 "$LOG_DIR/start-node.log" >&2; return 1; }
}
timed "node started (kube-node, Kubernetes 1.20)" start_node

# shellcheck source=../image/engine.sh
source deploy/image/engine.sh
import_images() {
  local ctr=(ctr -a "$NODE_DIR/containerd/containerd.sock" -n k8s.io) name ref
  # Streamed from podman's store: no 1.3 GB tar written and read back.
  while read -r name ref; do
    "${ctr[@]}" images ls -q "name==$ref" | grep -q . || pm save --format docker-archive "$ref" | "${ctr[@]}" images import - >/dev/null
  done <"$LOG_DIR/images.txt"
  "${ctr[@]}" images ls -q "name==$TRAWL_IMAGE_NEXT" | grep -q . || "${ctr[@]}" images tag "$TRAWL_IMAGE" "$TRAWL_IMAGE_NEXT" >/dev/null
  # The node keeps its images between runs (its image GC is off): drop the superseded builds.
  for ref in $("${ctr[@]}" images ls -q | grep -E '^localhost/trawl(-proof-[a-z]+)?:c[0-9a-f]{12}'); do
    grep -q " ${ref%-next}$" "$LOG_DIR/images.txt" || "${ctr[@]}" images rm --sync "$ref" >/dev/null
  done
}
timed "images imported into containerd" import_images

# ---- 3. the steps -----------------------------------------------------------------------------------
run_steps() {
  TOOLS_DIR="$TOOLS" KUBECONFIG_FILE="$NODE_DIR/kubeconfig" NODE_NETNS="$NETNS" WORK_DIR="$LOG_DIR" \
    TRAWL_IMAGE="$TRAWL_IMAGE" TRAWL_IMAGE_NEXT="$TRAWL_IMAGE_NEXT" POSTGRES_IMAGE="$(ref_of postgres)" \
    NATS_IMAGE="$(ref_of nats)" TESTWEB_IMAGE="$(ref_of testweb)" \
    node -r ./tools/register-aliases.js dist/deploy/cluster/proof/main.js
}
STEP="steps"
run_steps
STEP=""
