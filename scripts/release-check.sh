#!/usr/bin/env bash
# Validates .goreleaser.yaml with goreleaser itself (installed from the Go
# module proxy into a cache dir on first use), builds a snapshot for this
# machine, checks that the version is injected into the binary, and records
# the release files it checked in scripts/release-check.sum
# (`make release-check`; commit the record with the change). Then it
# refuses a release while labmate carries no digest for a file of the
# cluster binaries' download table (`go run ./hack/cluster/refresh
# -check`; the refresh itself needs a network): a release must not ship a
# labmate that downloads a program nobody vouched for. The record is
# written before that, since it records goreleaser's verdict alone.
#
#   scripts/release-check.sh              always check
#   scripts/release-check.sh --if-changed check only when a release file
#                                         differs from the record
#
# Why a record: goreleaser is built from source on a fresh machine (about
# six minutes on two cores), more than the rest of a first test run's
# checks together, and it checks files that rarely change. The default test
# run (scripts/test.sh) validates the config's fields labmate relies on
# with a YAML parser (scripts/releasebuild, its test) and proves the
# archive with scripts/archive-sandbox-check.sh; it calls this script with
# --if-changed, and scripts/releasebuild's test fails while the record is
# stale, so a change to a release file is not merged unchecked.
set -euo pipefail
cd "$(dirname "$0")/.."
files=(.goreleaser.yaml scripts/release-check.sh scripts/goreleaser-bin.sh)
record=scripts/release-check.sum

if [ "${1:-}" = "--if-changed" ]; then
  if sha256sum --check --status "$record" 2>/dev/null; then
    echo "release files unchanged since the last goreleaser check ($record): skipped (make release-check runs it)"
    exit 0
  fi
  echo "release files differ from $record: checking with goreleaser"
elif [ $# -gt 0 ]; then
  echo "usage: scripts/release-check.sh [--if-changed]" >&2
  exit 2
fi

goreleaser="$(./scripts/goreleaser-bin.sh)"
"$goreleaser" check

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$goreleaser" build --snapshot --clean --single-target --output "$out/labmate" >"$out/build.log" 2>&1 \
  || { cat "$out/build.log"; exit 1; }
rm -rf dist # goreleaser's work directory; the binary is in $out
got="$("$out/labmate" version)"
case "$got" in
  "labmate dev"|"labmate ") echo "version not injected: '$got'"; exit 1 ;;
  labmate\ *) echo "snapshot build ok: $got" ;;
  *) echo "unexpected version output: '$got'"; exit 1 ;;
esac
sha256sum "${files[@]}" >"$record"
echo "recorded in $record"
go run ./hack/cluster/refresh -check
