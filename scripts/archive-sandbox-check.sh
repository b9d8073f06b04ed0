#!/usr/bin/env bash
# Proves that a release archive alone brings up the sandbox: it builds
# labmate for this machine as .goreleaser.yaml's build does and packs it
# as its archive does (binary, README.md, docs/*.md) with
# scripts/releasebuild (goreleaser itself is built from source and run
# only by `make release-check`), unpacks it into an empty directory
# outside the checkout and, from there, runs `labmate sandbox build` (the
# source build, with Go) and `sandbox bundle`; then, as a learner on a
# machine without Go (an empty HOME, PATH=/usr/bin:/bin, nothing else in
# the environment), `sandbox up --from` that bundle, `status` and `down`
# on a cluster of its own. Binaries built from source match no digest
# labmate carries, so the learner vouches for the bundle as the issue-44
# rule asks of a room: with the bundle's own sha256, taken from the
# command `sandbox bundle` prints (and checked against sha256sum's); the
# same bundle without it is refused first, installing nothing. (The download from a mirror with upstream's
# layout is proved by sandbox/prebuilt's TestSandboxUpWithoutGo.)
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
# learner LABMATE-ARGS...: the archive's labmate as a learner without Go
# runs it: an empty HOME of its own, the system's PATH, nothing else.
learner() {
  (cd "$work/unpacked" && env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 ./labmate "$@")
}
cleanup() {
  local rc=$?
  if [ -x "$work/unpacked/labmate" ] && [ -d "$work/home" ]; then
    learner sandbox down --name "$name" >/dev/null ||
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
echo "== archive: labmate sandbox bundle"
./labmate sandbox bundle -o "$work/cluster.tar.gz" 2>"$work/bundle.log" || { cat "$work/bundle.log"; exit 1; }
cat "$work/bundle.log"
digest="$(sed -n 's/.*labmate sandbox up --from .* --sha256 \([0-9a-f]\{64\}\)$/\1/p' "$work/bundle.log")"
if [ -z "$digest" ] || [ "$digest" != "$(sha256sum "$work/cluster.tar.gz" | cut -d' ' -f1)" ]; then
  echo "archive-sandbox-check: sandbox bundle did not print the learners' command with the bundle's sha256" >&2
  exit 1
fi
mkdir "$work/home"
if env -i PATH=/usr/bin:/bin sh -c 'command -v go' >/dev/null; then
  echo "archive-sandbox-check: go is on PATH=/usr/bin:/bin; the learner's machine must have none" >&2
  exit 1
fi
echo "== archive, as a learner without Go: the bundle without its digest is refused"
if learner sandbox up --lab gpu-incident --name "$name" --from "$work/cluster.tar.gz" >"$work/unvouched.log" 2>&1; then
  cat "$work/unvouched.log"
  echo "archive-sandbox-check: a bundle of binaries built from source installed with nobody vouching for it" >&2
  exit 1
fi
grep -q -- "--sha256" "$work/unvouched.log" || { cat "$work/unvouched.log"; echo "archive-sandbox-check: the refusal does not say how to vouch" >&2; exit 1; }
echo "== archive, as a learner without Go: labmate sandbox up --from the bundle --sha256 $digest --name $name"
learner sandbox up --lab gpu-incident --name "$name" --from "$work/cluster.tar.gz" --sha256 "$digest"
learner sandbox status --name "$name"
echo "== archive, as a learner: labmate sandbox down --name $name"
learner sandbox down --name "$name"
echo "archive sandbox check ok"
