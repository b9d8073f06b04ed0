#!/usr/bin/env bash
# Reruns every speed and idle measurement the README reports. Numbers, not
# pass/fail: compare them with README.md's "Measured" table.
#   scripts/bench.sh            save-to-result (watch line, 1 s poller, half
#                               writes, --poll), trace replay, idle CPU
#   LABMATE_E2E=1 scripts/bench.sh   also API-change-to-result on the sandbox
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(mktemp -d)/labmate"
go build -o "$bin" ./cmd/labmate

# Green at once, red when quiet: what `labmate check --watch --json` shows
# after a save of out/merge.txt (step 3), through the real binary; the
# same saves seen by a 1 s loop of `labmate check --step 3`; and a right
# file rewritten in two chunks 5 ms apart, 20 times (zero red lines).
bench_save_to_result() {
  echo "== save -> check --watch --json line; 1 s check loop; two-chunk rewrites"
  go run ./scripts/benchwatch -bin "$bin" -rounds 100 -poller 20 -halves 20
  echo "== the same with --poll (NFS, SMB, 9p, FUSE roots)"
  go run ./scripts/benchwatch -bin "$bin" -poll -rounds 20 -poller 0 -halves 20
  echo "== engine only: file write -> report (real watcher and checks)"
  go test ./engine -run '^$' -bench FileWriteToResult -benchtime 100x -count 3
}

# Idle CPU of the real binary polling the lab's files (--poll) against
# file events: `check --watch` over 20 s, then the TUI in tmux over 10 s.
bench_poll_idle() {
  local root mode pid a b
  root="$(mktemp -d)"
  cp -r content/gpu-incident/reference/etc "$root/"
  for mode in "" --poll; do
    "$bin" check --watch --json --no-cluster --root "$root" --state-dir "$(mktemp -d)" $mode >/dev/null &
    pid=$!
    sleep 2
    a=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    sleep 20
    b=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    kill "$pid"
    echo "== idle check --watch ${mode:-(file events)}: $((b - a)) ticks of $(getconf CLK_TCK) Hz in 20 s"
  done
  command -v tmux >/dev/null || return 0
  echo "== idle CPU of the real binary with --poll over 10 s (real tmux)"
  sh tui/testdata/idle-cpu.sh 10 "$bin" --root "$root" --no-cluster --poll
}

bench_save_to_result
bench_poll_idle

echo "== reference trace, exact evaluation"
go test ./trace -run '^$' -bench Reference -benchmem -count 3

if [ "${LABMATE_E2E:-}" = "1" ]; then
  echo "== node status patch -> updated report (sandbox)"
  export LABMATE_CLUSTER_BIN="${LABMATE_CLUSTER_BIN:-$(./scripts/cluster-bins.sh | tail -n 1)}"
  go test ./e2e -run '^$' -bench NodePatchToReport -benchtime 200x -count 3
fi

if command -v tmux >/dev/null; then
  echo "== idle TUI CPU over 10 s (real tmux)"
  go test ./tui -run TestTmuxIdleCPU -count=1 -v | grep -E 'CPU|ok|FAIL'
  echo "== idle CPU of the real binary (watcher, prober, cluster source if reachable)"
  root="$(mktemp -d)"
  cp -r content/gpu-incident/reference/etc "$root/"
  sh tui/testdata/idle-cpu.sh 10 "$bin" --root "$root"
fi
