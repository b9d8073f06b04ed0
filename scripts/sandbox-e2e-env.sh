#!/usr/bin/env bash
# sandbox-e2e-env.sh builds (or reuses) the lab cluster binaries and prints
# the environment that turns on the sandbox-backed e2e tests:
#
#   eval "$(scripts/sandbox-e2e-env.sh)"
#   go test ./...
#
# It prints `export LABMATE_CLUSTER_BIN=...` and `export LABMATE_E2E=1` on
# stdout; build progress goes to stderr. Tests then call sandboxtest.Start,
# which brings the "labmate" sandbox up once and reuses it. Tear it down
# afterwards with `labmate sandbox down` (or leave it: it only uses
# loopback ports and the kwokctl work directory).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin_dir=$("$here/cluster-bins.sh")
printf 'export LABMATE_CLUSTER_BIN=%q\n' "$bin_dir"
printf 'export LABMATE_E2E=1\n'
