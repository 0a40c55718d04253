# Sourced by the image scripts: `podman` with the flags this host needs. Hosts with hybrid (v1) cgroups,
# such as some virtual machines, need runc and cgroupfs (crun refuses them); TEAMSTAGE_PODMAN_FLAGS overrides.
if [ -n "${TEAMSTAGE_PODMAN_FLAGS+set}" ]; then
  read -r -a PODMAN_FLAGS <<<"$TEAMSTAGE_PODMAN_FLAGS"
elif command -v runc >/dev/null; then
  PODMAN_FLAGS=(--runtime runc --cgroup-manager=cgroupfs)
else
  PODMAN_FLAGS=()
fi
podman() { command podman "${PODMAN_FLAGS[@]}" "$@"; }
