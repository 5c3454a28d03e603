# Sourced by deploy/image/proof.sh and deploy/cluster/images.sh: podman as this machine can run it, the
# bookworm + Node base (build-base.sh) and the Trawl image built on it. Expects ROOT_DIR (the
# repository) and a `log` function; sets nothing else until a function is called.
#
# Facts of this machine that shape the podman flags (see README.md): crun refuses the hybrid cgroup
# v1/v2 layout ("cgroups in hybrid mode not supported"), so runc runs the containers; the root user
# lacks CAP_SYS_RESOURCE and podman's default limits (nofile 1048576, nproc above podman's own 32768)
# cannot be set, so the limits are this shell's own.
# Environment: TRAWL_IMAGE_CACHE (default /var/cache/trawl-image-proof: the base tarball and podman's
# storage, kept between runs), TRAWL_IMAGE_STORAGE_DRIVER (overlay, or vfs).

IMAGE_CACHE_DIR="${TRAWL_IMAGE_CACHE:-/var/cache/trawl-image-proof}"
IMAGE_DRIVER="${TRAWL_IMAGE_STORAGE_DRIVER:-overlay}"
NOFILE="$(ulimit -Hn)"
NPROC="$(ulimit -Hu)"
[ "$NPROC" = unlimited ] || [ "$NPROC" -gt 32768 ] && NPROC=32768
[ "$NOFILE" = unlimited ] && NOFILE=1048576
ULIMITS=(--ulimit "nofile=$NOFILE:$NOFILE" --ulimit "nproc=$NPROC:$NPROC")

pm() {
  podman --root "$IMAGE_CACHE_DIR/storage-$IMAGE_DRIVER" --runroot "/run/trawl-image-proof/$IMAGE_DRIVER" \
    --storage-driver "$IMAGE_DRIVER" --runtime runc --cgroup-manager cgroupfs --events-backend file "$@"
}

# install_image_tools: podman, runc, debootstrap, curl and psql from Debian's packages when missing.
install_image_tools() {
  local need=()
  command -v podman >/dev/null || need+=(podman)
  command -v runc >/dev/null || need+=(runc)
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v curl >/dev/null || need+=(curl)
  command -v psql >/dev/null || need+=(postgresql-client)
  command -v openssl >/dev/null || need+=(openssl)
  if [ ${#need[@]} -gt 0 ]; then
    log "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
}

# import_base LOG_DIR: the bookworm + Node 20 base as a podman image; sets BASE_IMAGE.
import_base() {
  local tarball key
  tarball="$("$ROOT_DIR/deploy/image/build-base.sh")"
  key="$(basename "$tarball" .tar)"
  key="${key#base-}"
  BASE_IMAGE="localhost/trawl-base:$key"
  if ! pm image exists "$BASE_IMAGE"; then
    pm import --change 'CMD ["node"]' --change "ENV NODE_VERSION=$(node --version | tr -d v)" \
      "$tarball" "$BASE_IMAGE" >/dev/null 2>"$1/import.log" || { cat "$1/import.log" >&2; return 1; }
  fi
}

# build_trawl_image IMAGE LOG_DIR: the root Dockerfile on BASE_IMAGE (layers cached in IMAGE_CACHE_DIR).
build_trawl_image() {
  # The machine trusts a TLS-intercepting proxy's CA for the npm registry; the build gets it as the
  # Dockerfile's optional `npm_ca` secret (not kept in any layer).
  local ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" secret=()
  [ -s "$ca" ] && secret=(--secret "id=npm_ca,src=$ca")
  pm build --network host "${ULIMITS[@]}" "${secret[@]}" \
    --build-arg "BASE_IMAGE=$BASE_IMAGE" \
    --build-arg "VERSION=$(node -p 'require("./package.json").version')" \
    --build-arg "REVISION=$(git -C "$ROOT_DIR" rev-parse HEAD 2>/dev/null || echo unknown)" \
    --build-arg "CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    -t "$1" -f "$ROOT_DIR/Dockerfile" "$ROOT_DIR" >"$2/build.log" 2>&1 || { tail -n 40 "$2/build.log" >&2; return 1; }
}

# prune_images: cached layers of builds superseded more than a day ago; the current chains stay.
prune_images() {
  pm image prune -f --filter until=24h >/dev/null 2>&1
}
