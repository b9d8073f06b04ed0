#!/usr/bin/env bash
# cluster-bins.sh builds every binary the labmate sandbox needs, from the Go
# module proxy only (no prebuilt downloads):
#
#   etcd                      hack/cluster/etcd  (go.etcd.io/etcd/server/v3 etcdmain)
#   kube-apiserver            hack/cluster/k8s   (k8s.io/kubernetes, staging modules
#   kube-controller-manager                       replaced with their v0.34.x releases)
#   kube-scheduler
#   kubectl
#   kwok, kwokctl             go install sigs.k8s.io/kwok/cmd/...@KWOK_VERSION
#
# into ${LABMATE_CLUSTER_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/labmate/cluster/v1.34}.
#
# It is idempotent: a stamp file records the versions and a hash of the build
# recipe, and a second run with everything in place only prints the directory.
# Progress goes to stderr; the bin directory is the only thing printed on
# stdout, so `bin=$(scripts/cluster-bins.sh)` works.
#
# Usage: scripts/cluster-bins.sh [--force]
#   --force   rebuild even if the stamp says the binaries are current
#
# Cold build on a 2-core machine: about 6-10 minutes (Go module downloads
# included); with a warm Go build cache: well under a minute; cached: instant.
set -euo pipefail

K8S_VERSION=v1.34.12   # keep in sync with hack/cluster/k8s/go.mod
ETCD_VERSION=v3.6.4    # keep in sync with hack/cluster/etcd/go.mod
KWOK_VERSION=v0.8.0

force=0
for arg in "$@"; do
	case "$arg" in
	--force) force=1 ;;
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

log() { printf 'cluster-bins: %s\n' "$*" >&2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin_dir=${LABMATE_CLUSTER_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/labmate/cluster/v1.34}
stamp="$bin_dir/.stamp"
bins=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok kwokctl)

command -v go >/dev/null 2>&1 || {
	log "go is not on PATH"
	exit 1
}
mkdir -p "$bin_dir"
bin_dir=$(cd "$bin_dir" && pwd)

# Serialise concurrent runs (CI and a test binary may both ask for the bins).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$bin_dir/.lock"
	flock 9
fi

# The stamp: versions, Go version and a hash of the recipe (module files and
# thin main packages), so editing hack/cluster triggers a rebuild.
recipe_hash=$(
	cd "$root" &&
		find hack/cluster -type f \( -name go.mod -o -name go.sum -o -name '*.go' \) | LC_ALL=C sort |
		xargs sha256sum | sha256sum | cut -d' ' -f1
)
want_stamp="k8s=$K8S_VERSION etcd=$ETCD_VERSION kwok=$KWOK_VERSION go=$(go env GOVERSION) recipe=$recipe_hash"

have_all=1
for b in "${bins[@]}"; do
	[[ -x "$bin_dir/$b" ]] || have_all=0
done
if [[ $force == 0 && $have_all == 1 && -f "$stamp" && "$(cat "$stamp")" == "$want_stamp" ]]; then
	log "up to date ($want_stamp)"
	echo "$bin_dir"
	exit 0
fi

start=$(date +%s)
tmp=$(mktemp -d "$bin_dir/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Common build settings: never fetch a toolchain, ignore any go.work, and let
# the nested modules resolve missing go.sum entries from the proxy.
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
gobuildflags="-mod=mod -buildvcs=false"

# Version metadata the way upstream's hack/lib/version.sh stamps it; kwokctl
# reads `--version` output to pick the flags for each component.
k8s_minor=${K8S_VERSION#v1.}
k8s_minor=${k8s_minor%%.*}
build_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
k8s_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	k8s_ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$k8s_minor"
	k8s_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done

log "building Kubernetes $K8S_VERSION (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl)"
(cd "$root/hack/cluster/k8s" && GOFLAGS="$gobuildflags" go build -trimpath -ldflags="$k8s_ldflags" -o "$tmp/" ./cmd/...)

log "building etcd $ETCD_VERSION"
(cd "$root/hack/cluster/etcd" && GOFLAGS="$gobuildflags" go build -trimpath -ldflags="-s -w" -o "$tmp/etcd" .)

log "building kwok and kwokctl $KWOK_VERSION"
(cd "$tmp" && GOFLAGS=-buildvcs=false GOBIN="$tmp" go install -trimpath -ldflags="-s -w" \
	"sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" "sigs.k8s.io/kwok/cmd/kwokctl@$KWOK_VERSION")

for b in "${bins[@]}"; do
	[[ -x "$tmp/$b" ]] || {
		log "missing $b after build"
		exit 1
	}
done
for b in "${bins[@]}"; do
	mv -f "$tmp/$b" "$bin_dir/$b"
done
printf '%s\n' "$want_stamp" >"$stamp"
log "built ${#bins[@]} binaries in $(($(date +%s) - start))s"
echo "$bin_dir"
