#!/usr/bin/env bash
# cluster-bins.sh builds every binary the labmate sandbox needs (etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok,
# kwokctl) from the Go module proxy only. It is a thin caller of
# `labmate sandbox build`, which holds the recipe (hack/cluster, embedded
# into labmate), the stamp that makes it idempotent and the lock that
# serialises concurrent runs.
#
# Into ${LABMATE_CLUSTER_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/labmate/cluster/v1.34}.
# Progress goes to stderr; the bin directory is the only thing printed on
# stdout, so `bin=$(scripts/cluster-bins.sh)` works.
#
# Usage: scripts/cluster-bins.sh [--force]
#   --force   rebuild even if the stamp says the binaries are current
#
# Cold build on a 2-core machine: about 10-15 minutes (Go module downloads
# included; docs/SANDBOX.md has the measurements); with a warm Go build
# cache: well under a minute; cached: instant.
set -euo pipefail
for arg in "$@"; do
	case "$arg" in
	--force) ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "cluster-bins.sh: unknown argument: $arg" >&2
		exit 2
		;;
	esac
done
command -v go >/dev/null 2>&1 || {
	echo "cluster-bins.sh: go is not on PATH; install Go 1.25 or later (https://go.dev/dl)" >&2
	exit 1
}
cd "$(dirname "$0")/.."
GOFLAGS="${GOFLAGS:-} -buildvcs=false" exec go run ./cmd/labmate sandbox build "$@"
