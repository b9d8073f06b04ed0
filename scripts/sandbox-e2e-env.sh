#!/usr/bin/env bash
# sandbox-e2e-env.sh builds (or reuses) the lab cluster binaries and prints
# the environment that turns on the sandbox-backed e2e tests:
#
#   eval "$(scripts/sandbox-e2e-env.sh)"
#   go test -p 1 ./...
#
# It prints `export LABMATE_CLUSTER_BIN=...` and `export LABMATE_E2E=1` on
# stdout; build progress goes to stderr. Tests then call sandboxtest.Start,
# which brings the e2e cluster up once and reuses it: "labmate-e2e" (or
# $LABMATE_E2E_CLUSTER), never the learner's "labmate". Tear it down
# afterwards with `go run ./cmd/labmate sandbox down --name labmate-e2e`
# (scripts/test.sh does that by itself).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin_dir=$("$here/cluster-bins.sh")
printf 'export LABMATE_CLUSTER_BIN=%q\n' "$bin_dir"
printf 'export LABMATE_E2E=1\n'
