#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: builds the lab cluster's
# binaries from the Go module proxy (cached after the first run), validates
# the release config, then runs every Go test including the end-to-end ones
# against a real kwok control plane and the real-tmux TUI tests, with vet
# and staticcheck. At the end it prints how long each phase took
# (scripts/bench.sh ci turns that into README's Measured rows).
#
# Every package's tests run exactly once, in one of four groups:
#   race, local      go test -race, no sandbox needed
#   plain, local     go test, no sandbox needed
#   race, cluster    go test -race against the e2e sandbox
#   plain, cluster   go test against the e2e sandbox
# "cluster" packages are those whose tests import sandbox/sandboxtest;
# "race" packages are listed in race_pkgs below. The check after the lists
# fails when a package is in none or two of them.
#
# Beside them runs the containerd proof (e2e/containerdproof, its own go
# test): the real containerd of two releases, built once from the Go
# module proxy, held to what the labs' claims.toml say it does.
#
# Two lanes run side by side: the local lane runs vet, staticcheck, then
# the -race local group; the cluster lane waits for the cluster binaries,
# which build in the background from the start (on a fresh machine the
# longest step, mostly compiling; on a warm one a stamp check), then runs
# both cluster groups, each lab's proof and the release-archive check.
# The plain local group runs in whichever lane ends its own part first.
#
# How much runs at once is derived from the cores present (nproc), never
# fixed: a suite that decides anything on time must not load the machine
# past what it carries (a fresh 2-core run with six lab sandboxes, the
# -race lane, staticcheck and the release archive at once reached load
# 26, and trials timed out). The rule:
#   - clusters of a test's own (e2e's lab proofs, the sandbox self-test,
#     the release archive's check) take one of $cores machine-wide slots
#     each (sandboxtest.Slots, LABMATE_E2E_SANDBOXES), the rest wait;
#   - test binaries: the cluster groups run -p 2 (plain; e2e is one of the
#     two) and -p 1 (race) beside each other, the -race local one
#     -p $cores, the plain local one (tmux panes, contained scripts) -p 1;
#   - compiling (the cluster binaries, vet, staticcheck) overlaps the local
#     tests at a lower priority (nice 10), never the cluster tests' trials.
# The load average is sampled every 10 s and its peak printed at the end.
#
# The e2e tests run on their own sandbox cluster, $LABMATE_E2E_CLUSTER
# (default labmate-e2e, see sandbox/sandboxtest), never on the learner's
# "labmate" cluster from `labmate sandbox up`. It is torn down when this
# script exits, however it exits, unless LABMATE_KEEP_SANDBOX=1.
set -euo pipefail
cd "$(dirname "$0")/.."

# -trimpath everywhere: the release archive's labmate is built with it
# (.goreleaser.yaml), and a compile with it and one without are cached
# apart, so one flag for every build here compiles each package once.
# No DWARF from the compiler: no test reads it (stack traces and the race
# detector's reports come from the symbol table), and writing it is about
# a tenth of each compile's CPU, which is what bounds a fresh run.
export GOFLAGS="${GOFLAGS:-} -buildvcs=false -trimpath -gcflags=all=-dwarf=false"
export LABMATE_E2E="${LABMATE_E2E:-1}"
# sandboxtest.DefaultCluster; exported so that the tests and the teardown
# below agree on the name.
export LABMATE_E2E_CLUSTER="${LABMATE_E2E_CLUSTER:-labmate-e2e}"
if [ "$LABMATE_E2E_CLUSTER" = "labmate" ]; then
  echo "test.sh: LABMATE_E2E_CLUSTER=labmate is the learner's sandbox; the e2e tests change and delete their cluster, give them another name" >&2
  exit 2
fi

# The race detector where labmate's own goroutines meet: the engine and
# what feeds and consumes it (sources, run, the class's publisher
# (class/learner), its lab's watch (class/classlab) and the board's
# (class/admin), the connection's lazy clients and its ConfigMap informer
# (kube), trace, the shared caches of content and labkit, doctor's and
# verify's fan-outs, the e2e sandbox started once per test binary), and
# the script sandbox
# (observe/scriptprobe: goroutines run a script's scenarios at once, serve
# seccomp notifications, read the helper's status pipe and the script's
# output), and the cluster binaries' install (sandbox/prebuilt: a stall
# watchdog closes a body under the download, installs wait on one lock).
# Not: the tmux-driven TUI packages (real panes; -race only slows the
# timing they watch); labs/gpuincident, whose tests run the lab's checks
# through scriptprobe and start no goroutine of their own (the race
# detector would see only scriptprobe's again, at about 3.5 times the
# time: 17 s plain, 60 s with -race on a busy 2-core machine); and
# packages that drive built binaries (cmd/labmate, e2e) or hold no
# goroutines of their own (the race detector has nothing to see there,
# and each -race package is a second compile and link).
race_pkgs=(class/admin class/classlab class/learner content doctor engine internal/latest internal/syncio kube labkit labkit/action
  labkit/verify labrun observe/cluster observe/files observe/scriptprobe sandbox/prebuilt sandbox/sandboxtest trace)

cores="$(nproc)"
work="$(mktemp -d "${TMPDIR:-/tmp}/labmate-test.XXXXXX")"
times="$work/times"
: >"$times"
t_start=$(date +%s)

# phase NAME CMD...: runs CMD as phase NAME, recording its wall time.
phase() {
  local name=$1 t0 rc=0
  shift
  echo "== $name"
  t0=$(date +%s)
  "$@" || rc=$?
  echo "$name	$(($(date +%s) - t0))	$rc" >>"$times"
  return "$rc"
}

summary() {
  echo "== phases (wall time; the two lanes and the cluster build overlap)"
  awk -F'\t' '{ printf "   %-44s %6.1f min\n", $1, $2 / 60 }' "$times"
  awk -v s="$(($(date +%s) - t_start))" 'BEGIN { printf "   %-44s %6.1f min\n", "total", s / 60 }'
  if [ -x "$work/bin/gotestsum" ] && compgen -G "$work/json/*.json" >/dev/null; then
    echo "== the ten slowest tests (gotestsum tool slowest)"
    cat "$work"/json/*.json >"$work/all.json"
    # awk reads it all (head would close the pipe early: SIGPIPE, and
    # pipefail would turn a green run red).
    "$work/bin/gotestsum" tool slowest --jsonfile "$work/all.json" --threshold 1s | awk 'NR <= 10 { print "   " $0 }' || true
  fi
  if [ -s "$work/load" ]; then
    awk -v c="$cores" '{ if ($2 > m) { m = $2; at = $1 } s += $2; n++ }
      END { printf "== load average (1 min) on %d cores: peak %.1f at %d min, mean %.1f over %d samples\n", c, m, at / 60, s / n, n }' "$work/load"
  fi
}

# failures: what failed, last in the log (often all a CI view keeps):
# each phase that exited non-zero, then each failed test with the first
# lines of its output and each package that failed without a failed
# test (scripts/testfails reads the JSON events).
failures() {
  echo "== what failed"
  awk -F'\t' '$3 != "" && $3 != 0 { printf "   phase %s: exit %s\n", $1, $3 }' "$times"
  if compgen -G "$work/json/*.json" >/dev/null; then
    go run ./scripts/testfails -lines 6 "$work"/json/*.json
  fi
}

# The load average, every 10 s: seconds since the start, then the 1-minute
# load (summary prints its peak).
sample_load() {
  while sleep 10; do
    echo "$(($(date +%s) - t_start)) $(cut -d' ' -f1 /proc/loadavg)" >>"$work/load"
  done
}

# background CMD...: runs CMD in the background in a process group of its
# own (so that an early exit ends it and everything it started), adding
# its pid to bg_pids.
bg_pids=""
background() {
  set -m
  "$@" &
  set +m
  bg_pids="$bg_pids $!"
}

verdict=""
finish() {
  local rc=$?
  # Background work still running means this script is exiting early.
  for pid in $bg_pids; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$LABMATE_E2E" = "1" ] && [ -x "$work/labmate" ]; then
    if [ "${LABMATE_KEEP_SANDBOX:-}" = "1" ]; then
      echo "== keeping the e2e sandbox \"$LABMATE_E2E_CLUSTER\" (LABMATE_KEEP_SANDBOX=1); remove it with: go run ./cmd/labmate sandbox down --name $LABMATE_E2E_CLUSTER"
    else
      # The shared one, and any a test brought up for itself
      # (sandboxtest.ForLab: <name>-<suffix>) and could not take down
      # because its binary was killed.
      for dir in "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$LABMATE_E2E_CLUSTER" "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$LABMATE_E2E_CLUSTER"-*; do
        [ -d "$dir" ] || [ "$dir" = "${KWOK_WORKDIR:-$HOME/.kwok}/clusters/$LABMATE_E2E_CLUSTER" ] || continue
        name=$(basename "$dir")
        echo "== e2e sandbox \"$name\" down"
        "$work/labmate" sandbox down --name "$name" ||
          echo "test.sh: could not remove the e2e sandbox; run: go run ./cmd/labmate sandbox down --name $name" >&2
      done
    fi
  fi
  # The summary reports; it never changes the run's exit status.
  if [ -s "$times" ]; then summary || true; fi
  if [ "$rc" != 0 ] && [ -s "$times" ]; then failures || true; fi
  if [ -n "$verdict" ]; then echo "$verdict"; fi
  rm -rf "$work"
  exit "$rc"
}
trap finish EXIT
# An interrupt ends the script through the EXIT trap too.
trap 'exit 130' INT
trap 'exit 143' TERM

background sample_load
load_pid=${bg_pids##* }

# --- the four groups ------------------------------------------------------
# One collation for sort, comm and cmp.
export LC_COLLATE=C
module="$(go list -m)"
all="$work/all"
# The lab proofs (e2e/labproof) run apart, one go test per lab (see
# cluster_lane), so that go test's cache keeps each lab's result until
# its data or the verifier changes.
proofs="$module/e2e/labproof"
# The containerd proof (e2e/containerdproof) runs apart too, from the
# start (see containerd_proof below).
ctrproof="$module/e2e/containerdproof"
go list ./... | grep -vx -e "$proofs" -e "$ctrproof" | sort >"$all"
go list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... |
  awk -v s="$module/sandbox/sandboxtest" '{ for (i = 2; i <= NF; i++) if ($i == s) { print $1; break } }' |
  sort >"$work/cluster"
printf "$module/%s\n" "${race_pkgs[@]}" | sort >"$work/race"
if ! missing=$(comm -23 "$work/race" "$all") || [ -n "$missing" ]; then
  echo "test.sh: race_pkgs names packages that do not exist (renamed?): $missing" >&2
  exit 2
fi
comm -12 "$work/race" "$work/cluster" >"$work/race-cluster"
comm -23 "$work/race" "$work/cluster" >"$work/race-local"
comm -23 "$all" "$work/race" | comm -12 - "$work/cluster" >"$work/plain-cluster"
comm -23 "$all" "$work/race" | comm -23 - "$work/cluster" >"$work/plain-local"
# Every package in exactly one group: nothing dropped, nothing run twice.
groups=("$work/race-local" "$work/plain-local" "$work/race-cluster" "$work/plain-cluster")
if [ -n "$(sort "${groups[@]}" | uniq -d)" ] || ! sort "${groups[@]}" | cmp -s - "$all"; then
  echo "test.sh: the test groups do not cover every package exactly once:" >&2
  diff <(sort "${groups[@]}") "$all" >&2 || true
  exit 2
fi

# --- build, and the cluster binaries in the background -------------------
# labmate itself first: vet then finds its packages compiled, and the
# cluster build and the teardown run it without compiling it again.
phase "build labmate" go build -o "$work/labmate" ./cmd/labmate

# cluster_build: what scripts/cluster-bins.sh does (`labmate sandbox
# build`): module downloads, then compiling; a stamp check when current.
# Its exit status lands in $work/cluster-build.rc for the cluster lane.
cluster_build() {
  local t0 rc=0
  t0=$(date +%s)
  "$work/labmate" sandbox build >"$work/bin-dir" 2>"$work/cluster-build.log" || rc=$?
  echo "cluster binaries (in the background)	$(($(date +%s) - t0))" >>"$times"
  echo "$rc" >"$work/cluster-build.rc"
}
if [ "$LABMATE_E2E" = "1" ]; then
  echo "== cluster binaries (kwok, kwokctl, kube-apiserver, ...), in the background"
  background cluster_build
fi

# go test's result cache: a package whose test binary and inputs (the
# files and environment its tests read; for the tests that build and run
# a program of the module, every directory that program is built from and
# the test's own package tree, see internal/testbin)
# did not change since it last passed is not run again, so a warm run
# tests what changed. LABMATE_TEST_CACHE=0 runs every test anyway.
count_flag=()
if [ "${LABMATE_TEST_CACHE:-1}" = "0" ]; then
  count_flag=(-count=1)
fi

# Every go test runs through gotestsum (pinned, from the module proxy):
# the output go test gives without -v (standard-quiet), and each test's
# time kept in a JSON file, from which summary prints the ten slowest.
mkdir -p "$work/json"
phase "gotestsum" env GOBIN="$work/bin" go install gotest.tools/gotestsum@v1.13.0

# containerd_proof: what the labs say about containerd, held to the real
# containerd (e2e/containerdproof): it builds containerd v1.7.29 and
# v2.2.9 from the Go module proxy the first time (hack/containerd; cached
# in ~/.cache/labmate/containerd with a stamp, a stamp check afterwards)
# and runs `config dump` and the daemon on each lab's claims.toml. It
# needs no cluster, so it starts here, beside the cluster binaries' build,
# at the local lane's lower priority (its compile fills the cores the
# cluster build leaves idle); the run waits for it at the end. Its exit
# status lands in $work/containerd-proof.rc.
containerd_proof() {
  local rc=0
  renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
  phase "containerd proof" gotestsum_run containerd-proof -p 1 "$ctrproof" >"$work/containerd-proof.log" 2>&1 || rc=$?
  echo "$rc" >"$work/containerd-proof.rc"
}

# gotestsum_run JSONNAME GO-TEST-ARGS...: go test through gotestsum.
# -vet=off: the local lane's `go vet ./...` runs every analyzer go test
# would (a subset of vet's) on every package and its tests; go test's own
# pass would type-check each package again, once per build mode.
gotestsum_run() {
  local json=$1
  shift
  "$work/bin/gotestsum" --format standard-quiet --jsonfile "$work/json/$json.json" -- "${count_flag[@]}" -vet=off -timeout 60m "$@"
}

# gotest NAME FLAGS... -- LISTFILE: go test of the packages in LISTFILE.
gotest() {
  local name=$1 list=${*: -1} pkgs
  set -- "${@:2:$#-3}"
  pkgs=$(cat "$list")
  if [ -z "$pkgs" ]; then
    return 0
  fi
  # 60m: the lab proofs (`lab verify --mutants`) take minutes per lab.
  # shellcheck disable=SC2086
  phase "$name" gotestsum_run "$(basename "$list")" "$@" $pkgs
}

# The local lane: static analysis, unit tests, TUI in tmux, script
# sandbox. It runs at a lower CPU priority (nice) than the cluster lane,
# whose first part, compiling the cluster binaries on a fresh machine, is
# the longest chain of the run: what the local lane does meanwhile only
# fills the cores the compiler leaves idle. -p $cores for the race group
# (CPU-bound unit tests).
local_lane() {
  local rc=0
  renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
  phase "gofmt" check_gofmt || rc=1
  phase "go vet" go vet ./... || rc=1
  # staticcheck, pinned, run from the module proxy (nothing to install).
  phase "staticcheck" go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./... || rc=1
  # The config's fields labmate relies on are checked by go test
  # (scripts/releasebuild); goreleaser itself only when a release file
  # changed since its recorded check (see scripts/release-check.sh).
  phase "release config" ./scripts/release-check.sh --if-changed || rc=1
  gotest "go test -race (local)" -race -p "$cores" -- "$work/race-local" || rc=1
  plain_local_once || rc=1
  return "$rc"
}

# plain_local_once: the plain local group, run by whichever lane gets
# here first (mkdir is atomic); the other lane finds it taken and goes
# on. On a fresh machine the cluster lane ends first (its compile starts
# at once, the local lane's vet, staticcheck and -race compiles are
# slower), on a warm one after a lab or verifier change the local lane
# does: either way the group fills the cores the finished lane leaves.
plain_local_once() {
  if mkdir "$work/plain-local.taken" 2>/dev/null; then
    gotest "go test (local)" -p 1 -- "$work/plain-local"
  fi
}

# check_gofmt: every Go file of the module as gofmt writes it.
check_gofmt() {
  local bad
  bad=$(gofmt -l $(go list -f '{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}} {{end}}{{range .TestGoFiles}}{{$d}}/{{.}} {{end}}{{range .XTestGoFiles}}{{$d}}/{{.}} {{end}}{{range .IgnoredGoFiles}}{{$d}}/{{.}} {{end}}' ./...))
  if [ -n "$bad" ]; then
    echo "test.sh: not formatted as gofmt writes it (run gofmt -w):" >&2
    echo "$bad" >&2
    return 1
  fi
}

# with_slot CMD...: runs CMD holding one of the machine-wide slots of
# clusters of their own (sandboxtest.Slots: the same lock files, flock).
with_slot() {
  local dir="${XDG_CACHE_HOME:-$HOME/.cache}/labmate/sandbox/own-slots" n="${LABMATE_E2E_SANDBOXES:-$cores}" i fd rc
  mkdir -p "$dir"
  while :; do
    for ((i = 0; i < n; i++)); do
      exec {fd}>"$dir/slot-$i"
      if flock -n "$fd"; then
        rc=0
        "$@" || rc=$?
        exec {fd}>&-
        return "$rc"
      fi
      exec {fd}>&-
    done
    sleep 1
  done
}

wait_file() {
  until [ -s "$1" ]; do sleep 1; done
}

# The cluster lane: one sandbox shared by the test binaries (sandboxtest;
# tests that change the lab's own objects take its lab lock, across
# binaries), both groups at once: the plain one two binaries at a time
# (e2e, the longest, and one other), the race one a binary at a time
# beside it. Clusters of a test's own (e2e's lab proofs, the sandbox
# self-test) wait for one of the machine-wide slots.
cluster_lane() {
  local rc=0
  if [ "$LABMATE_E2E" = "1" ]; then
    phase "wait for the cluster binaries" wait_file "$work/cluster-build.rc"
    cat "$work/cluster-build.log"
    if [ "$(cat "$work/cluster-build.rc")" != 0 ]; then
      return 1
    fi
    LABMATE_CLUSTER_BIN="$(tail -n 1 "$work/bin-dir")"
    export LABMATE_CLUSTER_BIN
    echo "   in $LABMATE_CLUSTER_BIN"
  fi
  gotest "go test -race (cluster)" -race -p 1 -- "$work/race-cluster" >"$work/race-cluster.log" 2>&1 &
  local race=$!
  # Each lab's proof, a go test of its own (its own cache entry); they
  # wait for cluster slots like every cluster of a test's own.
  local proof_pids=() lab
  for lab in content/labs/*/lab.toml; do
    lab=$(basename "$(dirname "$lab")")
    phase "lab proof $lab" gotestsum_run "proof-$lab" -run "^TestLabProof\$/^$lab\$" "$proofs" >"$work/proof-$lab.log" 2>&1 &
    proof_pids+=($!)
  done
  # The release archive's check brings up a cluster of its own too.
  local archive=""
  if [ "$LABMATE_E2E" = "1" ]; then
    phase "release archive" with_slot ./scripts/archive-sandbox-check.sh >"$work/archive.log" 2>&1 &
    archive=$!
  fi
  gotest "go test (cluster)" -p 2 -- "$work/plain-cluster" || rc=1
  for pid in "${proof_pids[@]}"; do wait "$pid" || rc=1; done
  cat "$work"/proof-*.log
  if [ -n "$archive" ]; then
    wait "$archive" || rc=1
    cat "$work/archive.log"
  fi
  wait "$race" || rc=1
  cat "$work/race-cluster.log"
  plain_local_once || rc=1
  return "$rc"
}

# Each lane's lines carry its name, so the two streams can be told apart;
# each lane's exit status lands in a file.
run_lane() {
  set +e
  "${1}_lane" 2>&1 | sed -u "s/^/[$1] /"
  local status=("${PIPESTATUS[@]}")
  echo "${status[0]}" >"$work/$1.rc"
}
background containerd_proof
background run_lane local
background run_lane cluster
wait_file "$work/local.rc"
wait_file "$work/cluster.rc"
wait_file "$work/containerd-proof.rc"
sed 's/^/[containerd] /' "$work/containerd-proof.log"
kill -TERM -- "-$load_pid" 2>/dev/null || true
wait
bg_pids=""
local_rc=$(cat "$work/local.rc")
cluster_rc=$(cat "$work/cluster.rc")
containerd_rc=$(cat "$work/containerd-proof.rc")
# The verdict is the log's last line (finish prints it after the summary).
if [ "$local_rc" != 0 ] || [ "$cluster_rc" != 0 ] || [ "$containerd_rc" != 0 ]; then
  verdict="test.sh: FAIL (local lane: exit $local_rc, cluster lane: exit $cluster_rc, containerd proof: exit $containerd_rc)"
  exit 1
fi
verdict="test.sh: ok"
