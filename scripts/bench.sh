#!/usr/bin/env bash
# Reruns every speed and idle measurement the README reports. Numbers, not
# pass/fail: compare them with README.md's "Measured" table.
#   scripts/bench.sh            save-to-result (watch line, 1 s poller, half
#                               writes, --poll), trace replay, idle CPU
#   LABMATE_E2E=1 scripts/bench.sh   also API-change-to-result on the sandbox
#   scripts/bench.sh tui        only the TUI's start and idle (bench_tui)
#   scripts/bench.sh verify     only `labmate lab verify` of every lab (bench_verify)
#   scripts/bench.sh mutants    `labmate lab verify --mutants` of every lab, once each
#   scripts/bench.sh thp        a cold build of labmate with transparent huge
#                               pages for processes that ask and for all
#                               (what .ci/run turns on; needs root)
#   scripts/bench.sh compile [cluster]
#                               CPU of each compile phase of make test from
#                               a cold build cache (bench_compile)
#   scripts/bench.sh ci fresh   the first `make test` of a fresh machine:
#                               .ci/run with a fresh HOME (empty Go caches,
#                               no cluster binaries), phase by phase
#   scripts/bench.sh ci warm    `make test` again, phase by phase
#   scripts/bench.sh containerd the containerd proof (e2e/containerdproof)
#                               from empty caches (its two containerd
#                               builds from the module proxy), then warm
#   scripts/bench.sh sandbox-binaries [N]
#                               `sandbox up` on an empty HOME without Go from
#                               a loopback mirror and from a bundle file,
#                               N times (default 3), the bundle's size and
#                               the download by file (docs/MEASURED.md)
#   LABMATE_BENCH_HOME=DIR scripts/bench.sh ci fresh|warm
#                               fresh: DIR (empty or absent) is the fresh
#                               HOME and is kept; warm: make test again in
#                               that HOME, as .ci/run's environment (a warm
#                               run after a change: fresh, edit, warm)
set -euo pipefail
cd "$(dirname "$0")/.."

# --- TUI start and idle ------------------------------------------------
# bench_tui BIN: first frame with the step strip in an 80x24 tmux pane
# (median of 11 starts), `labmate version` wall time, peak RSS and package
# init time, and the idle TUI's CPU and RSS over 30 s.
bench_tui() {
  local bin=$1 root xdg sock n=11 i t0 t1 first=() secs=30
  root=$(mktemp -d); xdg=$(mktemp -d)
  mkdir -p "$root/etc"; cp -r content/labs/gpu-incident/reference/etc/. "$root/etc/"
  sock=labmate-bench-$$
  tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -s bench 'exec sleep 3600'
  local run="env XDG_CONFIG_HOME=$xdg/c XDG_STATE_HOME=$xdg/s TERM=tmux-256color LANG=C.UTF-8 $bin --lab gpu-incident --root $root --no-cluster"
  for i in $(seq "$n"); do
    t0=$(date +%s%N)
    tmux -L "$sock" respawn-pane -k -t bench "exec $run"
    until tmux -L "$sock" capture-pane -p -t bench | head -n 1 | grep -q '^labmate .*1.*8'; do
      if [ $(( $(date +%s%N) - t0 )) -gt 20000000000 ]; then echo "no step strip within 20 s" >&2; return 1; fi
    done
    t1=$(date +%s%N)
    first+=($(((t1 - t0) / 1000000)))
  done
  printf '%s\n' "${first[@]}" | sort -n | awk '{a[NR]=$1} END {printf "first frame with the step strip, 80x24 tmux, %d starts: median %d ms (min %d, max %d)\n", NR, a[int((NR+1)/2)], a[1], a[NR]}'

  local w=() c=() r=() it=() own=() chroma=() out
  for i in $(seq "$n"); do
    out=$( { /usr/bin/time -f '%e %U %S %M' env GODEBUG=inittrace=1 "$bin" version >/dev/null; } 2>&1 )
    w+=($(echo "$out" | tail -n 1 | awk '{printf "%d", $1 * 1000}'))
    c+=($(echo "$out" | tail -n 1 | awk '{printf "%d", ($2 + $3) * 1000}'))
    r+=($(echo "$out" | tail -n 1 | awk '{printf "%d", $4 / 1024}'))
    it+=($(echo "$out" | awk '/^init / {s += $5} END {printf "%.1f", s}'))
    own+=($(echo "$out" | awk '/^init github.com\/labhub\// {s += $5} END {printf "%.2f", s}'))
    chroma+=($(echo "$out" | awk '/^init github.com\/alecthomas\/chroma/ {s += $5} END {printf "%.1f", s}'))
  done
  med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  echo "labmate version, $n runs (medians): wall $(med "${w[@]}") ms, CPU $(med "${c[@]}") ms, peak RSS $(med "${r[@]}") MB"
  echo "  package init (GODEBUG=inittrace=1): $(med "${it[@]}") ms, of which chroma $(med "${chroma[@]}") ms, labmate's own packages $(med "${own[@]}") ms"

  tmux -L "$sock" respawn-pane -k -t bench "exec $run"
  sleep 3
  tmux -L "$sock" send-keys -t bench 2
  sleep 2
  local pid hz a b rss
  pid=$(tmux -L "$sock" display-message -p -t bench '#{pane_pid}')
  hz=$(getconf CLK_TCK)
  a=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  sleep "$secs"
  b=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status")
  anon=$(awk '/^RssAnon/ {print int($2 / 1024)}' "/proc/$pid/status")
  file=$(awk '/^RssFile/ {print int($2 / 1024)}' "/proc/$pid/status")
  awk -v d=$((b - a)) -v hz="$hz" -v s="$secs" -v rss="$rss" -v anon="$anon" -v file="$file" 'BEGIN {
    printf "idle TUI (real binary, files only), %d s: %.2f%% of one CPU (%d ticks), RSS %d MB (anonymous %d MB, the binary and files %d MB)\n", s, 100 * d / hz / s, d, rss, anon, file }'
  tmux -L "$sock" kill-server
  rm -rf "$root" "$xdg"
}


# --- lab verify ----------------------------------------------------------
# bench_verify BIN: `labmate lab verify ID` of every installed lab, three
# times each, with its sandbox already up (a sandbox of its own,
# labmate-bench-ID, brought up first and removed afterwards): the wall
# time of the whole proof, reset of the sandbox included. With --mutants
# (once each), also where the time went: the proof's --log phases, summed
# by scripts/proofphases.awk (trials: reset or rewind, session, earlier
# solutions replayed, the near-miss's actions, its grace), and the load
# average before and after.
bench_verify() {
  local bin=$1 lab name kc i t0 t1 runs=3 flags=() log
  if [ "${2:-}" = "--mutants" ]; then
    # The mutation proof is minutes per lab: once each.
    runs=1 flags=(--mutants)
  fi
  export LABMATE_CLUSTER_BIN="${LABMATE_CLUSTER_BIN:-$(./scripts/cluster-bins.sh | tail -n 1)}"
  log=$(mktemp)
  for lab in $("$bin" lab list --json | sed -n 's/.*"id": "\(.*\)",/\1/p'); do
    name="labmate-bench-$lab"
    # The cluster outlives this command: it keeps none of its descriptors
    # (a lock a wrapper holds for the benchmark).
    "$bin" sandbox up --lab "$lab" --name "$name" >/dev/null
    kc="${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$name/kubeconfig.yaml"
    for i in $(seq "$runs"); do
      : >"$log"
      echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg)"
      t0=$(date +%s.%N)
      "$bin" lab verify "$lab" "${flags[@]}" --kubeconfig "$kc" --log "$log" >/dev/null 2>&1 || echo "   verify $lab failed" >&2
      t1=$(date +%s.%N)
      echo "   lab verify $lab ${flags[*]}: $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
      if [ ${#flags[@]} -gt 0 ]; then
        awk -f scripts/proofphases.awk "$log" | grep -v '^exec [^k]' | sed 's/^/     /'
      fi
    done
    "$bin" sandbox down --name "$name" >/dev/null
  done
  rm -f "$log"
}

# --- the test run itself -----------------------------------------------
# bench_ci fresh|warm: wall time of the whole run and of each phase
# (scripts/test.sh prints them at its end), with the machine's load
# average before and after (other work on the machine slows every phase).
# fresh is what Done means for a new machine: `env -i PATH=$PATH
# HOME=$(mktemp -d) CI=true bash .ci/run`, the HOME removed afterwards.
# LABMATE_E2E_CLUSTER and LABMATE_ARCHIVE_CLUSTER pass through.
# cpu_busy: the jiffies every core spent busy since boot (/proc/stat:
# user, nice, system, irq, softirq, steal).
cpu_busy() {
  awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# cpu_sample FILE: every second, each process's pid, command name, CPU
# ticks so far and start time, appended to FILE (cpu_by_command sums it).
# A process that ends between the glob and cat makes cat fail: under
# pipefail that must not end the loop.
cpu_sample() {
  while :; do
    { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk '{ match($0, /\(.*\)/); comm = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "_", comm)
      split(substr($0, RSTART + RLENGTH + 1), a, " "); if (a[12] + a[13] > 0) print $1, comm, a[12] + a[13], a[20] }' >>"$1"
    sleep 1
  done
}

# cpu_by_command FILE SINCE: core-minutes by command name of the processes
# started after SINCE (clock ticks since boot), each at the most CPU it
# was seen with (a process that lived less than a second may be missed:
# the difference to the machine's busy time is printed as such).
cpu_by_command() {
  awk -v hz="$(getconf CLK_TCK)" -v since="$2" '$4 >= since { k = $1 " " $4; if ($3 > m[k]) { m[k] = $3; c[k] = $2 } }
    END { for (k in m) s[c[k]] += m[k]; for (n in s) printf "%.1f %s\n", s[n] / hz / 60, n }' "$1" | sort -rn
}

bench_ci() {
  local kind=$1 log home t0 t1 c0 rc=0 env=() samples since sampler
  log="$(mktemp "${TMPDIR:-/tmp}/labmate-bench-ci.XXXXXX")"
  samples="$(mktemp "${TMPDIR:-/tmp}/labmate-bench-cpu.XXXXXX")"
  since=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", $1 * hz }' /proc/uptime)
  cpu_sample "$samples" &
  sampler=$!
  for v in LABMATE_E2E_CLUSTER LABMATE_ARCHIVE_CLUSTER; do
    [ -n "${!v:-}" ] && env+=("$v=${!v}")
  done
  echo "== $kind run; load average before: $(cut -d' ' -f1-3 /proc/loadavg); nproc $(nproc); transparent huge pages: $(thp_mode)"
  t0=$(date +%s)
  c0=$(cpu_busy)
  case "$kind" in
  fresh)
    home="${LABMATE_BENCH_HOME:-$(mktemp -d)}"
    if [ -n "$(ls -A "$home" 2>/dev/null)" ]; then
      echo "bench.sh: LABMATE_BENCH_HOME=$home is not empty: a fresh run needs an empty HOME" >&2
      kill "$sampler"
      return 2
    fi
    mkdir -p "$home"
    env -i PATH="$PATH" HOME="$home" CI=true "${env[@]}" bash .ci/run 2>&1 | tee "$log" || rc=$?
    if [ -z "${LABMATE_BENCH_HOME:-}" ]; then
      # The module cache is read-only; go clean removes it.
      env -i PATH="$PATH" HOME="$home" go clean -modcache 2>/dev/null || true
      rm -rf "$home"
    fi
    ;;
  warm)
    if [ -n "${LABMATE_BENCH_HOME:-}" ]; then
      env -i PATH="$PATH" HOME="$LABMATE_BENCH_HOME" CI=true "${env[@]}" make test 2>&1 | tee "$log" || rc=$?
    else
      env "${env[@]}" make test 2>&1 | tee "$log" || rc=$?
    fi
    ;;
  *) echo "usage: scripts/bench.sh ci fresh|warm" >&2; return 2 ;;
  esac
  t1=$(date +%s)
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  echo "== $kind run: $(awk -v s=$((t1 - t0)) 'BEGIN { printf "%.1f", s / 60 }') min wall, exit $rc; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  # The machine's busy CPU time over the run (all processes, this run's
  # and anything else running): divided by the cores, the least wall time
  # that much work can take.
  awk -v b=$(($(cpu_busy) - c0)) -v n="$(nproc)" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "== CPU busy over the run: %.1f core-min (at least %.1f min of wall time on %d cores)\n", b / hz / 60, b / hz / 60 / n, n }'
  # Where it went: by command name (compile, link, vet, kube-apiserver,
  # etcd, the test binaries, labmate ...).
  echo "== CPU by command (core-min; processes seen by a 1 s sampler)"
  cpu_by_command "$samples" "$since" | awk '{ t += $1 } NR <= 15 { printf "   %6.1f %s\n", $1, $2 } END { printf "   %6.1f all of them\n", t }'
  rm -f "$samples"
  # The phase table test.sh printed, as one README cell.
  sed -n '/^== phases/,/^== the ten slowest/p' "$log" | awk '/^   / { name = $0; sub(/^   /, "", name); sub(/ +[0-9.]+ min$/, "", name); printf "%s%s %s min", sep, name, $(NF-1); sep = "; " } END { print "" }'
  rm -f "$log"
  return "$rc"
}

# --- compile CPU ------------------------------------------------------
# bench_compile [cluster]: the CPU (user + sys) each compiling phase of
# make test costs from a cold Go build cache, one phase after another
# (the module cache is kept: downloads are not CPU): labmate, go vet,
# staticcheck, the plain and the -race test binaries (compiled and linked;
# run with no test selected),
# with cluster the control plane's binaries too (about 12 min). A fresh
# run on 2 cores is bound by CPU, most of it these compiles.
bench_compile() {
  local dir module race_pkgs=() plain race
  dir=$(mktemp -d)
  eval "$(sed -n '/^race_pkgs=(/,/)$/p' scripts/test.sh)"
  module=$(go list -m)
  race=$(printf "$module/%s\n" "${race_pkgs[@]}" | sort)
  plain=$(go list ./... | sort | comm -23 - <(echo "$race"))
  # What test.sh exports, and a cache of this run's own; no sandbox.
  unset LABMATE_E2E
  export GOCACHE="$dir/gocache" XDG_CACHE_HOME="$dir/xdg"
  export GOFLAGS="-buildvcs=false -trimpath -gcflags=all=-dwarf=false"
  cpu() {
    local name=$1 TIMEFORMAT='%R %U %S'
    shift
    { time "$@" >"$dir/log" 2>&1; } 2>"$dir/time" || { cat "$dir/log"; return 1; }
    awk -v n="$name" '{ printf "   %-28s %5.0f s CPU (user %.0f, sys %.0f), %4.0f s wall\n", n, $2 + $3, $2, $3, $1 }' "$dir/time"
  }
  echo "== compile CPU from a cold build cache ($(nproc) cores, load before $(cut -d' ' -f1 /proc/loadavg), transparent huge pages: $(thp_mode))"
  cpu "build labmate" go build -o "$dir/labmate" ./cmd/labmate
  cpu "go vet" go vet ./...
  cpu "staticcheck" go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
  # shellcheck disable=SC2086
  cpu "test binaries (plain)" go test -run '^$' -count=1 -vet=off $plain
  # shellcheck disable=SC2086
  cpu "test binaries (-race)" go test -run '^$' -count=1 -race -vet=off $race
  if [ "${1:-}" = "cluster" ]; then
    cpu "cluster binaries" env LABMATE_CLUSTER_BIN="$dir/bin" "$dir/labmate" sandbox build
  fi
  chmod -R u+w "$dir" 2>/dev/null || true
  rm -rf "$dir"
}

# thp_mode: the kernel's transparent huge page mode (always, madvise,
# never), "unknown" where /sys does not say.
thp_mode() {
  sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown
}

# bench_thp: the CPU and page faults of a cold `go build ./cmd/labmate`
# with transparent huge pages only for processes that ask (madvise) and
# for every process (always), twice each, alternating; .ci/run turns them
# on for the whole run. Needs to write /sys (root, not in a container);
# the mode found is put back.
bench_thp() {
  local f=/sys/kernel/mm/transparent_hugepage/enabled old dir mode i TIMEFORMAT='%R %U %S' faults
  if [ ! -w "$f" ]; then
    echo "bench.sh thp: cannot write $f (needs root outside a container)" >&2
    return 2
  fi
  old=$(thp_mode)
  dir=$(mktemp -d)
  # bench.sh exits after this: put the mode back however it ends.
  # shellcheck disable=SC2064
  trap "echo $old >$f; chmod -R u+w $dir 2>/dev/null; rm -rf $dir" EXIT
  export GOFLAGS="-buildvcs=false -trimpath -gcflags=all=-dwarf=false"
  echo "== cold go build ./cmd/labmate ($(nproc) cores, load before $(cut -d' ' -f1 /proc/loadavg))"
  for i in 1 2; do
    for mode in madvise always; do
      echo "$mode" >"$f"
      rm -rf "$dir/gocache"
      faults=$(awk '$1 == "pgfault" { print $2 }' /proc/vmstat)
      { time GOCACHE="$dir/gocache" go build -o "$dir/labmate" ./cmd/labmate; } 2>"$dir/time"
      faults=$(($(awk '$1 == "pgfault" { print $2 }' /proc/vmstat) - faults))
      awk -v m="$mode" -v pf="$faults" '{ printf "   %-8s %5.0f s CPU (user %.0f, sys %.0f), %4.0f s wall, %.1f M page faults\n", m, $2 + $3, $2, $3, $1, pf / 1e6 }' "$dir/time"
    done
  done
}

# bench_containerd: the containerd proof's cost, cold (a fresh
# XDG_CACHE_HOME, Go build cache and module cache: the two containerd
# builds of hack/containerd from the module proxy, the test binary, the
# claims) and warm (the same caches again: stamp checks), wall and CPU.
bench_containerd() {
  local d run
  d=$(mktemp -d)
  for run in cold warm; do
    echo "== containerd proof, $run"
    env XDG_CACHE_HOME="$d/xdg" GOCACHE="$d/gocache" GOMODCACHE="$d/gomod" LABMATE_E2E=1 \
      /usr/bin/time -f "   wall %e s, CPU %U s user + %S s sys" go test -count=1 ./e2e/containerdproof
  done
  chmod -R u+w "$d" && rm -rf "$d"
}

if [ "${1:-}" = "containerd" ]; then
  bench_containerd
  exit 0
fi

if [ "${1:-}" = "thp" ]; then
  bench_thp
  exit
fi

if [ "${1:-}" = "compile" ]; then
  bench_compile "${2:-}"
  exit
fi

if [ "${1:-}" = "ci" ]; then
  bench_ci "${2:-warm}"
  exit
fi

# bench_sandbox_binaries N: sandbox/prebuilt's TestSandboxUpWithoutGo N
# times (the real labmate, an empty HOME, PATH=/usr/bin:/bin; the
# binaries in $LABMATE_CLUSTER_BIN, built first if missing, served on
# loopback in upstream's layout), printing its measured lines; then the
# files the first run fetched, with their sizes.
bench_sandbox_binaries() {
  local n=${1:-3} i log
  export LABMATE_CLUSTER_BIN="${LABMATE_CLUSTER_BIN:-$(./scripts/cluster-bins.sh | tail -n 1)}"
  log=$(mktemp)
  for i in $(seq "$n"); do
    LABMATE_E2E=1 go test -count=1 -run '^TestSandboxUpWithoutGo$' -v ./sandbox/prebuilt/ >"$log.$i" 2>&1 ||
      { cat "$log.$i"; rm -f "$log".*; return 1; }
    echo "== run $i"
    grep -o 'measured: .*' "$log.$i" | sed 's/^/   /'
  done
  echo "== files fetched from the mirror (run 1)"
  grep -E '^ +[a-z0-9.-]+ 받음 \(' "$log.1" | head -n 7 | sed 's/^ */   /'
  rm -f "$log" "$log".*
}

if [ "${1:-}" = "sandbox-binaries" ]; then
  bench_sandbox_binaries "${2:-3}"
  exit
fi

if [ "${1:-}" = "verify" ] || [ "${1:-}" = "mutants" ]; then
  bin="$(mktemp -d)/labmate"
  go build -o "$bin" ./cmd/labmate
  if [ "$1" = "mutants" ]; then
    bench_verify "$bin" --mutants
  else
    bench_verify "$bin"
  fi
  exit
fi

# The TUI is measured as a release builds it (-trimpath, -s -w): its RSS
# counts the binary's pages.
release_build() {
  mkdir -p .cache/bench
  go build -trimpath -ldflags '-s -w' -o .cache/bench/labmate ./cmd/labmate
  echo .cache/bench/labmate
}

if [ "${1:-}" = "tui" ]; then
  bin="$(release_build)"
  bench_tui "$bin"
  exit
fi


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
  cp -r content/labs/gpu-incident/reference/etc "$root/"
  for mode in "" --poll; do
    "$bin" check --lab gpu-incident --watch --json --no-cluster --root "$root" --state-dir "$(mktemp -d)" $mode >/dev/null &
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
  sh tui/testdata/idle-cpu.sh 10 "$bin" --lab gpu-incident --root "$root" --no-cluster --poll
}

bench_save_to_result
bench_poll_idle

echo "== reference trace, exact evaluation"
go test ./labrun -run '^$' -bench ExactReference -benchmem -count 3

if [ "${LABMATE_E2E:-}" = "1" ]; then
  echo "== node status patch -> updated report (sandbox)"
  export LABMATE_CLUSTER_BIN="${LABMATE_CLUSTER_BIN:-$(./scripts/cluster-bins.sh | tail -n 1)}"
  go test ./e2e -run '^$' -bench NodePatchToReport -benchtime 200x -count 3
  echo "== class of 200 learners: status change -> board row, requests, board RSS/CPU (sandbox, tmux)"
  go test ./tui/board -run "^$" -bench BenchmarkClassScale -benchtime 1x -v | grep -E "scale_e2e_test|Benchmark|ok|FAIL"
  echo "== lab verify of every lab, sandbox up"
  bench_verify "$bin"
fi

if command -v tmux >/dev/null; then
  echo "== idle TUI CPU over 10 s (real tmux)"
  go test ./tui -run TestTmuxIdleCPU -count=1 -v | grep -E 'CPU|ok|FAIL'
  echo "== idle CPU of the real binary (watcher, prober, cluster source if reachable)"
  root="$(mktemp -d)"
  cp -r content/labs/gpu-incident/reference/etc "$root/"
  sh tui/testdata/idle-cpu.sh 10 "$bin" --lab gpu-incident --root "$root"
fi

if command -v tmux >/dev/null; then
  echo "== TUI start (first frame, process start, init) and idle CPU/RSS over 30 s"
  bin="$(release_build)"
  bench_tui "$bin"
fi
