#!/usr/bin/env bash
# Makes a stand-in for the public `node:20-bookworm-slim` image from Debian's packages, for machines
# that reach Debian's mirror and the npm registry but no image registry (this project's CI):
# a minimal bookworm root file system (debootstrap --variant=minbase) with Node 20 at /usr/local/bin.
#
# Why Node is copied from this machine: bookworm's own `nodejs` is 18, and the services need Node 20
# (package.json engines). The public Node image installs the official Node build under /usr/local;
# this machine has Node 20 from its own package, built for the same Debian, so its binary (linked
# only against glibc and libstdc++, both in minbase) and its npm are copied to the same places:
# /usr/local/bin/node, /usr/local/lib/node_modules/{npm,corepack}, npm/npx/corepack links.
# The Dockerfile then builds on it exactly as on the public image.
#
# Prints the path of a root file system tarball (numeric owners) that `podman import` or
# `docker import` takes. Cached under $TRAWL_IMAGE_CACHE (default /var/cache/trawl-image-proof),
# keyed by this script and the Node version copied in; made anew when either changes.
set -euo pipefail

MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
CACHE_DIR="${TRAWL_IMAGE_CACHE:-/var/cache/trawl-image-proof}"

NODE_BIN="$(readlink -f "$(command -v node)")"
NODE_VERSION="$("$NODE_BIN" --version)"
case "$NODE_VERSION" in
  v20.*) ;;
  *) echo "build-base: this machine's Node is $NODE_VERSION; the image needs Node 20" >&2; exit 1 ;;
esac
# npm and corepack live beside the binary's prefix: /usr/bin/node → /usr/lib/node_modules.
NODE_MODULES_DIR="$(dirname "$(dirname "$NODE_BIN")")/lib/node_modules"
[ -f "$NODE_MODULES_DIR/npm/bin/npm-cli.js" ] || { echo "build-base: no npm under $NODE_MODULES_DIR" >&2; exit 1; }
NPM_VERSION="$("$NODE_BIN" "$NODE_MODULES_DIR/npm/bin/npm-cli.js" --version)"

KEY="$( { cat "${BASH_SOURCE[0]}"; echo "$NODE_VERSION $NPM_VERSION $MIRROR $SECURITY_MIRROR"; } | sha256sum | cut -c1-16)"
TARBALL="$CACHE_DIR/base-bookworm-node${NODE_VERSION#v}-$KEY.tar"
if [ -s "$TARBALL" ]; then
  echo "$TARBALL"
  exit 0
fi

command -v debootstrap >/dev/null || { echo "build-base: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
mkdir -p "$CACHE_DIR"
WORK="$(mktemp -d "$CACHE_DIR/base-work.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
ROOT="$WORK/rootfs"

echo "build-base: debootstrap bookworm (minbase) from $MIRROR" >&2
debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 || {
  tail -n 30 "$WORK/debootstrap.log" >&2
  exit 1
}

# The same sources as Debian's official bookworm image, so `apt-get install` in the Dockerfile gets
# the current Chromium from bookworm-security, as it would on the public Node image.
rm -f "$ROOT/etc/apt/sources.list"
cat >"$ROOT/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY_MIRROR
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# As in Debian's image: no package caches or lists in the base (every build runs apt-get update).
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/log/*.log
mkdir -p "$ROOT/var/lib/apt/lists/partial"
: >"$ROOT/etc/hostname"
# The container engine provides these at run time.
: >"$ROOT/etc/resolv.conf"

echo "build-base: Node $NODE_VERSION and npm $NPM_VERSION into /usr/local" >&2
install -D -m 0755 "$NODE_BIN" "$ROOT/usr/local/bin/node"
mkdir -p "$ROOT/usr/local/lib/node_modules"
cp -a "$NODE_MODULES_DIR/npm" "$ROOT/usr/local/lib/node_modules/npm"
[ -d "$NODE_MODULES_DIR/corepack" ] && cp -a "$NODE_MODULES_DIR/corepack" "$ROOT/usr/local/lib/node_modules/corepack"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"
[ -d "$ROOT/usr/local/lib/node_modules/corepack" ] && ln -sf ../lib/node_modules/corepack/dist/corepack.js "$ROOT/usr/local/bin/corepack"

got="$(chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin node --version)"
[ "$got" = "$NODE_VERSION" ] || { echo "build-base: node in the new root answers '$got'" >&2; exit 1; }
chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root npm --version >/dev/null

tar --numeric-owner --xattrs -C "$ROOT" -cf "$WORK/base.tar" .
# Older bases of this cache are of no more use.
rm -f "$CACHE_DIR"/base-bookworm-*.tar
mv "$WORK/base.tar" "$TARBALL"
echo "$TARBALL"
