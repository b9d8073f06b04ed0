#!/usr/bin/env bash
# Validates .goreleaser.yaml with goreleaser itself (installed from the Go
# module proxy into a cache dir on first use), then builds a snapshot for
# this machine and checks that the version is injected into the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
GORELEASER_VERSION=v2.15.1
bin="${XDG_CACHE_HOME:-$HOME/.cache}/labmate/tools/goreleaser-$GORELEASER_VERSION"
if [ ! -x "$bin/goreleaser" ]; then
  mkdir -p "$bin"
  GOBIN="$bin" go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi
"$bin/goreleaser" check

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$bin/goreleaser" build --snapshot --clean --single-target --output "$out/labmate" >"$out/build.log" 2>&1 \
  || { cat "$out/build.log"; exit 1; }
got="$("$out/labmate" version)"
case "$got" in
  "labmate dev"|"labmate ") echo "version not injected: '$got'"; exit 1 ;;
  labmate\ *) echo "snapshot build ok: $got" ;;
  *) echo "unexpected version output: '$got'"; exit 1 ;;
esac
