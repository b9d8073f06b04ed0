#!/usr/bin/env bash
# record-reference.sh LAB records the built-in reference run of an
# installed lab: `labmate lab verify LAB --record` walks the lab's
# reference solutions (verify.toml) against a sandbox of its own, with
# labmate's real sources recording a trace, and keeps it only if it
# replays to every step passing in the lab's order. The trace goes to
# content/labs/LAB/<reference_run of its lab.toml>, which the binary embeds
# (`labmate replay --lab LAB` plays it).
#
# Usage: scripts/record-reference.sh LAB
#
# Needs Go; builds the cluster binaries first (scripts/cluster-bins.sh,
# cached after the first run). The sandbox is its own (labmate-record-LAB),
# made for this and removed afterwards: the learner's sandbox is not touched.
set -euo pipefail

lab="${1:?usage: scripts/record-reference.sh LAB}"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
run=$(sed -n 's/^reference_run *= *"\(.*\)"$/\1/p' "content/labs/$lab/lab.toml")
[ -n "$run" ] || { echo "record-reference: content/labs/$lab/lab.toml names no reference_run" >&2; exit 2; }
dest="content/labs/$lab/$run"

LABMATE_CLUSTER_BIN=$(scripts/cluster-bins.sh)
export LABMATE_CLUSTER_BIN
bin=$(mktemp -d)/labmate
go build -o "$bin" ./cmd/labmate
name="labmate-record-$lab"
trap '"$bin" sandbox down --name "$name" >/dev/null' EXIT
"$bin" sandbox up --lab "$lab" --name "$name"

"$bin" lab verify "$lab" --record "$dest" \
	--kubeconfig "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name/kubeconfig.yaml"
# The embedded copy must pass the test CI runs.
go test -count=1 -run '^TestReferenceRunsPassInOrder$' -v ./labrun
printf 'record-reference: wrote %s (%s bytes, %s lines)\n' "$dest" "$(wc -c <"$dest" | tr -d ' ')" "$(wc -l <"$dest" | tr -d ' ')" >&2
