#!/usr/bin/env bash
# Validates .goreleaser.yaml with goreleaser itself (installed from the Go
# module proxy into a cache dir on first use), then builds a snapshot for
# this machine and checks that the version is injected into the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
goreleaser="$(./scripts/goreleaser-bin.sh)"
"$goreleaser" check

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$goreleaser" build --snapshot --clean --single-target --output "$out/labmate" >"$out/build.log" 2>&1 \
  || { cat "$out/build.log"; exit 1; }
got="$("$out/labmate" version)"
case "$got" in
  "labmate dev"|"labmate ") echo "version not injected: '$got'"; exit 1 ;;
  labmate\ *) echo "snapshot build ok: $got" ;;
  *) echo "unexpected version output: '$got'"; exit 1 ;;
esac
