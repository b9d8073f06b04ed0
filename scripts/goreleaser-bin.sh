#!/usr/bin/env bash
# Prints the path of a goreleaser binary, installed from the Go module proxy
# into a cache dir on first use.
set -euo pipefail
GORELEASER_VERSION=v2.15.1
bin="${XDG_CACHE_HOME:-$HOME/.cache}/labmate/tools/goreleaser-$GORELEASER_VERSION"
if [ ! -x "$bin/goreleaser" ]; then
  mkdir -p "$bin"
  GOBIN="$bin" go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION" >&2
fi
echo "$bin/goreleaser"
