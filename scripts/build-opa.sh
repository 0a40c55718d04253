#!/usr/bin/env bash
# Builds the pinned OPA (the policy engine, issue 29) into DIR/opa (default ~/.cache/teamstage-realclients/bin):
# `go install github.com/open-policy-agent/opa@v$OPA_VERSION` through the Go module proxy, with CGO off, so the
# binary is static and runs in the container image (Debian's glibc there need not match this machine's) as well
# as here. The tests (scripts/build-real-clients.sh) and the image (scripts/build-image.sh) use the same binary.
# Rebuilt only when the version or the build flags change (the stamp beside it): a second once built.
set -euo pipefail
OPA_VERSION=1.22.3
out="${1:-${TEAMSTAGE_REALCLIENTS_DIR:-$HOME/.cache/teamstage-realclients}/bin}"
export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "build-opa: go not found (expected /usr/local/go/bin/go); or put a v$OPA_VERSION opa at $out/opa" >&2; exit 1; }
mkdir -p "$out"
# GOEXPERIMENT=nogreenteagc: Go 1.26's default "green tea" collector segfaults (SIGSEGV in spanQueue.tryDrain)
# in about half the evaluations that reach the memory cap (`ulimit -d`, src/policies/opa-engine.ts), where the
# classic collector always ends with "fatal error: runtime: cannot allocate memory" (measured 12 of 12 each).
want="opa v$OPA_VERSION CGO_ENABLED=0 GOEXPERIMENT=nogreenteagc -trimpath -s -w $(go env GOVERSION)"
# grep reads to the end (no -q): an early close would SIGPIPE opa, which pipefail turns into a failure.
if [[ -x "$out/opa" && -f "$out/opa.stamp" && "$(cat "$out/opa.stamp")" == "$want" ]] &&
  "$out/opa" version 2>/dev/null | grep -x "Version: $OPA_VERSION" >/dev/null; then
  echo "build-opa: opa $OPA_VERSION is up to date"
  exit 0
fi
started=$SECONDS
# -s -w: no symbol tables (about a third smaller); OPA's version string is set by its own source, not ldflags.
CGO_ENABLED=0 GOEXPERIMENT=nogreenteagc GOFLAGS=-buildvcs=false GOBIN="$out" nice -n 10 go install -trimpath -ldflags "-s -w" "github.com/open-policy-agent/opa@v$OPA_VERSION"
echo "$want" > "$out/opa.stamp"
echo "build-opa: built opa $OPA_VERSION (static) in $((SECONDS - started)) s"
