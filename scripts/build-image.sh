#!/usr/bin/env bash
# Builds the Teamstage container image (docs/operations.md, "Run it in a container") from what this machine reaches:
# Debian's packages and npm. No base image is pulled from a registry:
#   1. base: mmdebstrap makes a minimal Debian trixie root file system with Debian's nodejs (20.x) and
#      ca-certificates, plus a teamstage user and /data; `podman import` turns it into an image. Kept and
#      reused until --refresh-base (it changes only with Debian's updates).
#   2. app: the built server (one bundled file) and its one native dependency, better-sqlite3, compiled
#      here for Node's ABI, which must be the base's (checked below); container/Containerfile adds them.
#   3. opa: the policy engine (issue 29), OPA's pinned release built static by scripts/build-opa.sh through
#      the Go module proxy (minutes the first time, cached after), copied in as /usr/local/bin/opa.
# Environment: TEAMSTAGE_IMAGE (default localhost/teamstage:latest), TEAMSTAGE_BASE_IMAGE,
# TEAMSTAGE_PODMAN_FLAGS (global podman flags; default --runtime runc --cgroup-manager=cgroupfs when runc
# is installed, which hosts with hybrid cgroups need: crun refuses them).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${TEAMSTAGE_IMAGE:-localhost/teamstage:latest}
BASE=${TEAMSTAGE_BASE_IMAGE:-localhost/teamstage-base:trixie}
REFRESH_BASE=false
for arg in "$@"; do
  case "$arg" in
    --refresh-base) REFRESH_BASE=true ;;
    *) echo "usage: $0 [--refresh-base]" >&2; exit 2 ;;
  esac
done

# shellcheck source=podman-flags.sh
source scripts/podman-flags.sh
# Explicit limits for the smoke run below: without them runc on such hosts fails to set the defaults.
RUN_LIMITS=(--ulimit nofile=1024:1024 --ulimit nproc=4096:4096)

command -v podman >/dev/null || { echo "podman is not installed (apt-get install podman runc mmdebstrap)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if $REFRESH_BASE || ! podman image exists "$BASE"; then
  command -v mmdebstrap >/dev/null || { echo "mmdebstrap is not installed (apt-get install mmdebstrap)" >&2; exit 1; }
  echo "== base image $BASE: Debian trixie (minbase) with nodejs, by mmdebstrap"
  # The teamstage user is written into /etc/passwd directly: minbase has no useradd.
  mmdebstrap --variant=minbase --include=nodejs,ca-certificates \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook='echo "teamstage:x:10001:10001:Teamstage:/data:/usr/sbin/nologin" >> "$1/etc/passwd"' \
    --customize-hook='echo "teamstage:x:10001:" >> "$1/etc/group"' \
    --customize-hook='mkdir -p "$1/data" && chown 10001:10001 "$1/data" && chmod 0750 "$1/data"' \
    --customize-hook='rm -rf "$1/var/lib/apt/lists"/* "$1/var/cache/apt"/*' \
    trixie "$work/rootfs.tar"
  podman import --message "Debian trixie minbase + nodejs for Teamstage" "$work/rootfs.tar" "$BASE"
  rm -f "$work/rootfs.tar"
fi

echo "== the server: built unless dist/ is newer than every source (scripts/build-if-stale.mjs)"
node --input-type=module -e "import { buildIfStale } from './scripts/build-if-stale.mjs'; buildIfStale(process.cwd());"

echo "== staging /app: the bundles, the web console, the build's commit, and better-sqlite3 (the one dependency left outside them)"
app="$work/app"
mkdir -p "$app/dist/bundle" "$app/node_modules"
# Every bundle (the server, the worker threads it starts, the standalone pipeline client it serves at
# /pipeline/teamstage-pipeline.mjs), the console it serves at /app (dist/web), and which commit they were
# built from (dist/build-info.json: --version, /metrics).
cp dist/bundle/*.mjs "$app/dist/bundle/"
cp -R dist/web "$app/dist/web"
cp dist/build-info.json "$app/dist/"
cp package.json "$app/"
# The exec probe the podman pod example uses (container/probe.mjs): podman 4.3 has no httpGet probe without curl.
cp container/probe.mjs "$app/probe.mjs"
stage_module() { # name, then the paths inside it to copy
  local name=$1; shift
  mkdir -p "$app/node_modules/$name"
  (cd "node_modules/$name" && cp -R --parents package.json "$@" "$app/node_modules/$name/")
  cp node_modules/"$name"/LICENSE* "$app/node_modules/$name/" 2>/dev/null || true
}
stage_module better-sqlite3 lib build/Release/better_sqlite3.node
stage_module bindings bindings.js
stage_module file-uri-to-path index.js

echo "== the policy engine: OPA, pinned and static (scripts/build-opa.sh)"
opa_dir="${TEAMSTAGE_REALCLIENTS_DIR:-$HOME/.cache/teamstage-realclients}/bin"
bash scripts/build-opa.sh "$opa_dir"
cp "$opa_dir/opa" "$work/opa"

# better-sqlite3 is compiled against this Node's ABI; the image's Node must have the same one.
host_abi=$(node -p process.versions.modules)
image_abi=$(podman run --rm "${RUN_LIMITS[@]}" --network=none --entrypoint node "$BASE" -p process.versions.modules)
if [ "$host_abi" != "$image_abi" ]; then
  echo "Node ABI differs: this machine's Node has $host_abi, the image's $image_abi; build with a Node 20 like the image's" >&2
  exit 1
fi

echo "== image $IMAGE"
cp container/Containerfile "$work/Containerfile"
version=$(node -p "require('./package.json').version")
podman build --format docker --pull=never --build-arg "BASE=$BASE" --build-arg "VERSION=$version" --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)" -t "$IMAGE" -f "$work/Containerfile" "$work"

# The native module loads inside the image, as the server's user.
podman run --rm "${RUN_LIMITS[@]}" --network=none --no-healthcheck --entrypoint node "$IMAGE" \
  -e "const D=require('/app/node_modules/better-sqlite3'); new D(':memory:').prepare('select 1').get(); console.log('better-sqlite3 loads, node', process.version)"
# So does OPA, where the server looks for it.
podman run --rm "${RUN_LIMITS[@]}" --network=none --no-healthcheck --entrypoint sh "$IMAGE" -c '"$TEAMSTAGE_OPA_PATH" version | sed -n 1p'
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
echo "built $IMAGE ($((size / 1024 / 1024)) MiB)"
