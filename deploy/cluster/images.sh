#!/usr/bin/env bash
# Builds every image the cluster proof runs, with podman on the bookworm + Node base of the image
# proof (deploy/image/engine.sh), each tagged after its image ID, for proof.sh to stream into the
# node's containerd (nothing can be pulled there) when the node lacks that tag:
#   trawl      the root Dockerfile (what `make image-proof` proves)
#   postgres   Debian's postgresql-15 (images/postgres)
#   nats       Debian's nats-server with JetStream (images/nats)
#   testweb    the proof's site and webhook receiver (images/testweb)
# usage: images.sh LOG_DIR   → prints one line per image: NAME REF
set -euo pipefail
ROOT_DIR="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT_DIR/deploy/cluster"
LOG_DIR="$1"
log() { printf '[cluster-proof] %s\n' "$*" >&2; }
# shellcheck source=../image/engine.sh
source "$ROOT_DIR/deploy/image/engine.sh"

install_image_tools >&2
import_base "$LOG_DIR"

build_local() { # build_local NAME: images/NAME/Containerfile on the base
  pm build --network host "${ULIMITS[@]}" --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "localhost/trawl-proof-$1:build" \
    -f "$HERE/images/$1/Containerfile" "$HERE/images/$1" >"$LOG_DIR/build-$1.log" 2>&1 \
    || { tail -n 30 "$LOG_DIR/build-$1.log" >&2; return 1; }
}

# tag NAME IMAGE REPOSITORY: tags IMAGE as REPOSITORY:c<first 12 of its ID>.
tag() {
  local id
  id="$(pm image inspect --format '{{.Id}}' "$2" | cut -c1-12)"
  pm tag "$2" "$3:c$id"
  echo "$1 $3:c$id"
}

# The image proof (run just before in CI) built this very revision: hashing node_modules again for
# the cache check alone takes most of a minute. A checkout with changes builds anew.
current_build() {
  pm image exists localhost/trawl:proof &&
    [ "$(pm image inspect --format '{{index .Labels "org.opencontainers.image.revision"}}' localhost/trawl:proof)" = "$(git -C "$ROOT_DIR" rev-parse HEAD 2>/dev/null)" ] &&
    [ -z "$(git -C "$ROOT_DIR" status --porcelain -- package.json package-lock.json tsconfig.json tsconfig.build.json apps libs tools bench test/fixtures test/support deploy/image/trawl.sh Dockerfile)" ]
}

current_build || build_trawl_image localhost/trawl:proof "$LOG_DIR"
tag trawl localhost/trawl:proof localhost/trawl
for name in postgres nats testweb; do
  build_local "$name"
  tag "$name" "localhost/trawl-proof-$name:build" "localhost/trawl-proof-$name"
done
prune_images
