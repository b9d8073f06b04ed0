#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: builds the lab cluster's
# binaries from the Go module proxy (cached after the first run), validates
# the release config, then runs every Go test including the end-to-end ones
# against a real kwok control plane and the real-tmux TUI tests.
#
# The e2e tests run on their own sandbox cluster, $LABMATE_E2E_CLUSTER
# (default labmate-e2e, see sandbox/sandboxtest), never on the learner's
# "labmate" cluster from `labmate sandbox up`. It is torn down when this
# script exits, however it exits, unless LABMATE_KEEP_SANDBOX=1.
set -euo pipefail
cd "$(dirname "$0")/.."

export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
export LABMATE_E2E="${LABMATE_E2E:-1}"
# sandboxtest.DefaultCluster; exported so that the tests and the teardown
# below agree on the name.
export LABMATE_E2E_CLUSTER="${LABMATE_E2E_CLUSTER:-labmate-e2e}"
if [ "$LABMATE_E2E_CLUSTER" = "labmate" ]; then
  echo "test.sh: LABMATE_E2E_CLUSTER=labmate is the learner's sandbox; the e2e tests change and delete their cluster, give them another name" >&2
  exit 2
fi

echo "== go vet"
go vet ./...

# staticcheck, pinned, run from the module proxy (nothing to install).
echo "== staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

if [ "$LABMATE_E2E" = "1" ]; then
  echo "== cluster binaries (kwok, kwokctl, kube-apiserver, ...)"
  LABMATE_CLUSTER_BIN="$(./scripts/cluster-bins.sh | tail -n 1)"
  export LABMATE_CLUSTER_BIN
  echo "   in $LABMATE_CLUSTER_BIN"

  e2e_down() {
    local rc=$?
    if [ "${LABMATE_KEEP_SANDBOX:-}" = "1" ]; then
      echo "== keeping the e2e sandbox \"$LABMATE_E2E_CLUSTER\" (LABMATE_KEEP_SANDBOX=1); remove it with: go run ./cmd/labmate sandbox down --name $LABMATE_E2E_CLUSTER"
    else
      echo "== e2e sandbox \"$LABMATE_E2E_CLUSTER\" down"
      go run ./cmd/labmate sandbox down --name "$LABMATE_E2E_CLUSTER" ||
        echo "test.sh: could not remove the e2e sandbox; run: go run ./cmd/labmate sandbox down --name $LABMATE_E2E_CLUSTER" >&2
    fi
    exit "$rc"
  }
  trap e2e_down EXIT
  # An interrupt ends the script through the EXIT trap too.
  trap 'exit 130' INT
  trap 'exit 143' TERM
fi

# The config's fields labmate relies on are checked by go test
# (scripts/releasebuild); goreleaser itself only when a release file
# changed since its recorded check (see scripts/release-check.sh).
echo "== release config"
./scripts/release-check.sh --if-changed

if [ "$LABMATE_E2E" = "1" ]; then
  echo "== release archive alone: labmate sandbox build/up/down outside the checkout"
  ./scripts/archive-sandbox-check.sh
fi

# The race detector on every package that does not drive the TUI in tmux
# (tui and its subpackages: real panes, where -race only slows the
# timing the tests watch). Unit tests only here: LABMATE_E2E=0 skips the
# cluster tests, which the full run below does without -race.
echo "== go test -race"
# shellcheck disable=SC2046
LABMATE_E2E=0 go test -race -count=1 $(go list ./... | grep -v -e '/tui$' -e '/tui/')

echo "== go test"
# -p 1: the machine has two cores, and the e2e packages share one cluster
# (sandboxtest); the unit packages are fast either way.
go test -p 1 -count=1 -timeout 40m ./...
