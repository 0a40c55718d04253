#!/usr/bin/env bash
# Builds localhost/teamstage-postgres:trixie, the PostgreSQL that examples/compose/ runs beside two Teamstage
# nodes: Debian trixie's postgresql package by mmdebstrap, like the Teamstage image (no registry image is
# pulled). On first start it makes a cluster with one role, `teamstage`, whose password is POSTGRES_PASSWORD,
# listening on every address with scram-sha-256. For production, use the PostgreSQL you already run.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${TEAMSTAGE_POSTGRES_IMAGE:-localhost/teamstage-postgres:trixie}
# shellcheck source=podman-flags.sh
source scripts/podman-flags.sh

if podman image exists "$IMAGE" && [ "${1:-}" != "--refresh" ]; then
  echo "$IMAGE exists (--refresh rebuilds it)"
  exit 0
fi
command -v mmdebstrap >/dev/null || { echo "mmdebstrap is not installed (apt-get install mmdebstrap)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/entrypoint.sh" <<'SCRIPT'
#!/bin/sh
# First start: a cluster owned by the postgres user, one superuser role `teamstage` with POSTGRES_PASSWORD.
set -eu
bin=$(echo /usr/lib/postgresql/*/bin)
: "${PGDATA:=/var/lib/postgresql/data}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "POSTGRES_PASSWORD must be set" >&2; exit 1; }
  umask 077
  printf '%s' "$POSTGRES_PASSWORD" > /tmp/pwfile
  "$bin/initdb" -D "$PGDATA" -U teamstage --pwfile=/tmp/pwfile --auth=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
fi
exec "$bin/postgres" -D "$PGDATA" -k /tmp
SCRIPT
mmdebstrap --variant=minbase --include=postgresql \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="upload $work/entrypoint.sh /usr/local/bin/postgres-entrypoint" \
  --customize-hook='chmod 0755 "$1/usr/local/bin/postgres-entrypoint"' \
  --customize-hook='for tool in "$1"/usr/lib/postgresql/*/bin/*; do ln -sf "${tool#"$1"}" "$1/usr/local/bin/"; done' \
  --customize-hook='mkdir -p "$1/var/lib/postgresql/data" && chroot "$1" chown -R postgres:postgres /var/lib/postgresql && chmod 0700 "$1/var/lib/postgresql/data"' \
  --customize-hook='rm -rf "$1/var/lib/apt/lists"/* "$1/var/cache/apt"/*' \
  trixie "$work/rootfs.tar"
podman import --message "Debian trixie minbase + postgresql for Teamstage's compose example" \
  --change 'USER postgres' --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]' --change 'STOPSIGNAL SIGINT' \
  "$work/rootfs.tar" "$IMAGE"
echo "built $IMAGE"
