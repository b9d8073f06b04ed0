#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: builds the lab cluster's
# binaries from the Go module proxy (cached after the first run), validates
# the release config, then runs every Go test including the end-to-end ones
# against a real kwok control plane and the real-tmux TUI tests.
set -euo pipefail
cd "$(dirname "$0")/.."

export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
export LABMATE_E2E="${LABMATE_E2E:-1}"

echo "== go vet"
go vet ./...

if [ "$LABMATE_E2E" = "1" ]; then
  echo "== cluster binaries (kwok, kwokctl, kube-apiserver, ...)"
  LABMATE_CLUSTER_BIN="$(./scripts/cluster-bins.sh | tail -n 1)"
  export LABMATE_CLUSTER_BIN
  echo "   in $LABMATE_CLUSTER_BIN"
fi

echo "== release config"
./scripts/release-check.sh

echo "== go test"
# -p 1: the e2e packages share one sandbox cluster and the machine has
# two cores; the unit packages are fast either way.
go test -p 1 -count=1 -timeout 40m ./...
