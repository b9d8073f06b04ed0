#!/usr/bin/env bash
# record-reference.sh records the built-in reference run of the GPU incident
# lab: a learner's walk through all eight steps against the sandbox cluster
# (e2e/reference_record_test.go), with labmate's real sources recording a
# trace. The trace is kept only if it replays to all eight steps passed in
# the lab's order; it is then copied to trace/reference/gpu-incident.jsonl,
# which the binary embeds (`labmate replay` with no file plays it).
#
# Usage: scripts/record-reference.sh
#
# Needs Go; builds the cluster binaries first (scripts/cluster-bins.sh,
# cached after the first run) and brings the sandbox up if it is not
# running. The walk deletes and recreates the lab's namespaces (gpu-lab,
# gpu-operator), the RuntimeClass nvidia and the nodes' GPU amounts in the
# sandbox: do not run it while another walk uses the same sandbox.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
lab=gpu-incident
dest="trace/reference/$lab.jsonl"

LABMATE_CLUSTER_BIN=$(scripts/cluster-bins.sh)
export LABMATE_CLUSTER_BIN

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$work/$lab.jsonl"

LABMATE_E2E=1 LABMATE_RECORD_REFERENCE="$out" \
	go test -count=1 -timeout 20m -run '^TestRecordReference$' -v ./e2e

cp "$out" "$dest"
# The embedded copy must pass the same test CI runs.
go test -count=1 -run '^TestReferenceRunPassesInOrder$' -v ./trace
printf 'record-reference: wrote %s (%s bytes, %s lines)\n' "$dest" "$(wc -c <"$dest" | tr -d ' ')" "$(wc -l <"$dest" | tr -d ' ')" >&2
