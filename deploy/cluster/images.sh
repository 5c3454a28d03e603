#!/usr/bin/env bash
# Builds every image the cluster proof runs, with podman on the bookworm + Node base of the image
# proof (deploy/image/engine.sh), and writes each as a docker-archive tar that the node's containerd
# imports (nothing can be pulled there):
#   trawl      the root Dockerfile (what `make image-proof` proves)
#   postgres   Debian's postgresql-15 (images/postgres)
#   nats       Debian's nats-server with JetStream (images/nats)
#   testweb    the proof's site and webhook receiver (images/testweb)
# Each tar is named after its image ID and kept in OUT_DIR until a new build supersedes it, so an
# unchanged image is neither saved nor imported again.
# usage: images.sh OUT_DIR LOG_DIR   → prints one line per image: NAME REF TAR
set -euo pipefail
ROOT_DIR="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT_DIR/deploy/cluster"
OUT_DIR="$1"
LOG_DIR="$2"
log() { printf '[cluster-proof] %s\n' "$*" >&2; }
# shellcheck source=../image/engine.sh
source "$ROOT_DIR/deploy/image/engine.sh"

install_image_tools >&2
import_base "$LOG_DIR"
mkdir -p "$OUT_DIR"

build_local() { # build_local NAME: images/NAME/Containerfile on the base
  pm build --network host "${ULIMITS[@]}" --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "localhost/trawl-proof-$1:build" \
    -f "$HERE/images/$1/Containerfile" "$HERE/images/$1" >"$LOG_DIR/build-$1.log" 2>&1 \
    || { tail -n 30 "$LOG_DIR/build-$1.log" >&2; return 1; }
}

# save NAME IMAGE REPOSITORY: tags IMAGE as REPOSITORY:c<id>, writes OUT_DIR/NAME-<id>.tar once.
save() {
  local name="$1" image="$2" repository="$3" id ref tar
  id="$(pm image inspect --format '{{.Id}}' "$image" | cut -c1-12)"
  ref="$repository:c$id"
  tar="$OUT_DIR/$name-$id.tar"
  if [ ! -s "$tar" ]; then
    pm tag "$image" "$ref"
    find "$OUT_DIR" -maxdepth 1 -name "$name-*.tar" -delete
    pm save --format docker-archive -o "$tar.part" "$ref" >/dev/null
    mv "$tar.part" "$tar"
  fi
  echo "$name $ref $tar"
}

build_trawl_image localhost/trawl:proof "$LOG_DIR"
save trawl localhost/trawl:proof localhost/trawl
for name in postgres nats testweb; do
  build_local "$name"
  save "$name" "localhost/trawl-proof-$name:build" "localhost/trawl-proof-$name"
done
prune_images
