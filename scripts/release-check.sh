#!/usr/bin/env bash
# Validates .goreleaser.yaml with goreleaser itself (installed from the Go
# module proxy into a cache dir on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
GORELEASER_VERSION=v2.15.1
bin="${XDG_CACHE_HOME:-$HOME/.cache}/labmate/tools/goreleaser-$GORELEASER_VERSION"
if [ ! -x "$bin/goreleaser" ]; then
  mkdir -p "$bin"
  GOBIN="$bin" go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi
"$bin/goreleaser" check
