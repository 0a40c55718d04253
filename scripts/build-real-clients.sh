#!/usr/bin/env bash
# Builds the real clients that test/realclients drives against Teamstage, at the versions pinned in the
# test-only Go modules under test/realclients/ (go.mod and go.sum there are the pins):
#   $TEAMSTAGE_REALCLIENTS_DIR/bin/tofu          OpenTofu's CLI (test/realclients/tofu)
#   $TEAMSTAGE_REALCLIENTS_DIR/bin/go-tfe.test   go-tfe's own integration tests (test/realclients/gotfe)
#   $TEAMSTAGE_REALCLIENTS_DIR/gotfe-src         the path of go-tfe's source, where its tests must run
#   $TEAMSTAGE_REALCLIENTS_DIR/bin/opa           the policy engine, by scripts/build-opa.sh
# TEAMSTAGE_REALCLIENTS_DIR defaults to ~/.cache/teamstage-realclients. A binary is rebuilt only when its
# module's go.sum changed since it was built (the stamp beside it), so reruns take a second. Go's own
# build cache makes a rebuild after a pin change incremental. Builds run niced, one at a time (a lock in
# the output directory makes a second caller wait). Arguments name the clients to build (`go-tfe`, `tofu`, `opa`);
# none builds all three.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "build-real-clients: go not found (expected /usr/local/go/bin/go)" >&2; exit 1; }

out="${TEAMSTAGE_REALCLIENTS_DIR:-$HOME/.cache/teamstage-realclients}"
mkdir -p "$out/bin"
export GOFLAGS="${GOFLAGS:--buildvcs=false} -mod=readonly"

# build NAME MODULE_DIR COMMAND...: runs COMMAND in MODULE_DIR unless the stamp matches go.mod, go.sum, the command and Go.
build() {
  local name="$1" dir="$2"; shift 2
  local stamp="$out/bin/$name.stamp" want
  want="$( (cat "$dir/go.mod" "$dir/go.sum"; echo "$*") | sha256sum | cut -d' ' -f1) $(go env GOVERSION)"
  if [[ -x "$out/bin/$name" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "build-real-clients: $name is up to date"
    return
  fi
  local started=$SECONDS
  (cd "$dir" && nice -n 10 "$@")
  echo "$want" > "$stamp"
  echo "build-real-clients: built $name in $((SECONDS - started)) s"
}

exec 9>"$out/build.lock"
flock 9
wanted=" ${*:-go-tfe tofu opa} "
if [[ "$wanted" == *" go-tfe "* ]]; then
  build go-tfe.test test/realclients/gotfe go test -c -vet=off -o "$out/bin/go-tfe.test" github.com/hashicorp/go-tfe
  (cd test/realclients/gotfe && go mod download github.com/hashicorp/go-tfe && go list -m -f '{{.Dir}}' github.com/hashicorp/go-tfe) > "$out/gotfe-src"
fi
if [[ "$wanted" == *" tofu "* ]]; then
  # dev=no: a release build, as OpenTofu's own release makes it (else the version reads v1.10.6-dev).
  build tofu test/realclients/tofu go build -trimpath -ldflags "-X github.com/opentofu/opentofu/version.dev=no" \
    -o "$out/bin/tofu" github.com/opentofu/opentofu/cmd/tofu
  # sed reads to the end: `head -1` would close the pipe early, and under pipefail tofu's SIGPIPE failed the script at random.
  TF_CLI_CONFIG_FILE=/dev/null "$out/bin/tofu" version | sed -n 1p
fi
if [[ "$wanted" == *" opa "* ]]; then
  # The policy engine the tests judge policies with (issue 29): the same pinned, static build the image ships.
  bash scripts/build-opa.sh "$out/bin"
fi
