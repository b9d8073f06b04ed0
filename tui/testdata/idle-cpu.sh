#!/bin/sh
# Measures how much CPU labmate's TUI uses while nothing changes.
#
#   tui/testdata/idle-cpu.sh [SECONDS] [PROGRAM [ARGS...]]
#
# Starts PROGRAM (default: the tuidemo harness, built here) in a detached
# 100x40 tmux pane on a private socket, waits for it to settle, then reads
# utime+stime from /proc/<pid>/stat before and after SECONDS (default 10)
# and prints the share of one CPU. The Go test TestTmuxIdleCPU does the
# same next to a bare bubbletea program (tuidemo -bare) and asserts the TUI
# costs no more than it.
set -eu
secs=${1:-10}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/../.."
if [ $# -eq 0 ]; then
	bin=$(mktemp -d)/tuidemo
	go build -o "$bin" ./tui/internal/tuidemo
	set -- "$bin"
fi
sock=labmate-idle-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 40 -s idle "exec $*"
sleep 2
tmux -L "$sock" send-keys -t idle 2
sleep 1
pid=$(tmux -L "$sock" display-message -p -t idle '#{pane_pid}')
hz=$(getconf CLK_TCK)
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
a=$(ticks)
sleep "$secs"
b=$(ticks)
awk -v d=$((b - a)) -v hz="$hz" -v s="$secs" -v cmd="$*" 'BEGIN {
	printf "idle CPU: %.2f%% of one CPU over %ss (%d ticks at %d Hz), pid of: %s\n", 100 * d / hz / s, s, d, hz, cmd
}'
