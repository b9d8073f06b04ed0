#!/usr/bin/env bash
# Reruns every speed and idle measurement the README reports. Numbers, not
# pass/fail: compare them with README.md's "Measured" table.
#   scripts/bench.sh            file-to-result, trace replay, idle TUI CPU
#   LABMATE_E2E=1 scripts/bench.sh   also API-change-to-result on the sandbox
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== file write -> updated step result (median-ms, p99-ms)"
go test ./engine -run '^$' -bench FileWriteToResult -benchtime 100x -count 3

echo "== reference trace, exact evaluation"
go test ./trace -run '^$' -bench Reference -benchmem -count 3

if [ "${LABMATE_E2E:-}" = "1" ]; then
  echo "== node status patch -> updated report (sandbox)"
  export LABMATE_CLUSTER_BIN="${LABMATE_CLUSTER_BIN:-$(./scripts/cluster-bins.sh | tail -n 1)}"
  go test ./e2e -run '^$' -bench NodePatchToReport -benchtime 200x -count 3
  echo "== class of 200 learners: status change -> board row, requests, board RSS/CPU (sandbox, tmux)"
  go test ./tui/board -run TestClassScaleE2E -count=1 -v | grep -E 'scale_e2e_test|ok|FAIL'
fi

if command -v tmux >/dev/null; then
  echo "== idle TUI CPU over 10 s (real tmux)"
  go test ./tui -run TestTmuxIdleCPU -count=1 -v | grep -E 'CPU|ok|FAIL'
  echo "== idle CPU of the real binary (watcher, prober, cluster source if reachable)"
  bin="$(mktemp -d)/labmate"
  go build -o "$bin" ./cmd/labmate
  root="$(mktemp -d)"
  cp -r content/gpu-incident/reference/etc "$root/"
  sh tui/testdata/idle-cpu.sh 10 "$bin" --root "$root"
fi
