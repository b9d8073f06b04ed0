#!/usr/bin/env bash
# Proves that a release archive alone brings up the sandbox on a machine
# with Go and nothing else: it builds labmate for this machine as
# .goreleaser.yaml's build does and packs it as its archive does (binary,
# README.md, docs/*.md) with scripts/releasebuild (goreleaser itself is
# built from source and run only by `make release-check`), unpacks it into
# an empty directory outside the checkout and, from there, runs
# `labmate sandbox build`, `up`, `status` and `down` on a cluster of its
# own.
#
# The binaries are built into $LABMATE_CLUSTER_BIN (default: the usual
# cache), so after a first build this only checks that the recipe embedded
# in the archive's labmate matches the cache's stamp. Set
# LABMATE_ARCHIVE_BIN_DIR to an empty directory to prove a cold build.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
name="${LABMATE_ARCHIVE_CLUSTER:-labmate-archive}"

work="$(mktemp -d "${TMPDIR:-/tmp}/labmate-archive.XXXXXX")"
cleanup() {
  local rc=$?
  if [ -x "$work/unpacked/labmate" ]; then
    (cd "$work/unpacked" && ./labmate sandbox down --name "$name" >/dev/null) ||
      echo "archive-sandbox-check: could not remove sandbox $name" >&2
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== archive: built and packed as .goreleaser.yaml says (scripts/releasebuild)"
archive="$(go run ./scripts/releasebuild -o "$work/build")"
mkdir "$work/unpacked"
tar -xzf "$archive" -C "$work/unpacked"

cd "$work/unpacked"
case "$(pwd)" in "$repo"*) echo "archive-sandbox-check: unpacked inside the checkout" >&2; exit 1 ;; esac
if [ -e scripts ] || [ -e hack ] || [ -e go.mod ]; then
  echo "archive-sandbox-check: the archive carries repository files" >&2
  exit 1
fi
if [ -n "${LABMATE_ARCHIVE_BIN_DIR:-}" ]; then
  export LABMATE_CLUSTER_BIN="$LABMATE_ARCHIVE_BIN_DIR"
fi
echo "== archive: $(./labmate version), in $(pwd)"
echo "== archive: labmate sandbox build"
bin_dir="$(./labmate sandbox build)"
echo "   $bin_dir"
echo "== archive: labmate sandbox up --name $name"
./labmate sandbox up --lab gpu-incident --name "$name"
./labmate sandbox status --name "$name"
echo "== archive: labmate sandbox down --name $name"
./labmate sandbox down --name "$name"
echo "archive sandbox check ok"
