#!/usr/bin/env bash
# scripts/cli-dump.sh BIN OUTDIR: what a user sees of the command line,
# to show that a change to the command floor changes none of it: every
# command's --help, completions, usage errors and a fixed set of command
# lines, each as OUTDIR/NNN-name.{args,out,err,code}, times, durations
# and ports normalised, with a fresh HOME and XDG dirs. With DUMP_KWOK=1
# it also brings up a kwok sandbox (labmate-clidump, binaries from
# $LABMATE_BIN_DIR or ~/.cache/labmate/cluster/v1.34) and runs check,
# doctor, class and lab verify against it: run it through the heavy lock.
# Compare two binaries (the one before a change and the one after):
#   scripts/cli-dump.sh /tmp/before /tmp/d-before
#   scripts/cli-dump.sh /tmp/after /tmp/d-after
#   diff -r /tmp/d-before /tmp/d-after
set -u
BIN=$(realpath "$1"); OUT=$2
rm -rf "$OUT"; mkdir -p "$OUT"
HOME_REAL=$HOME
W=$(mktemp -d "${TMPDIR:-/tmp}/labmate-clidump.XXXXXX"); trap 'rm -rf "$W"' EXIT
mkdir -p "$W"/{home,root,root2,state,data,cache,config,kwok,out}
export HOME=$W/home XDG_STATE_HOME=$W/state XDG_DATA_HOME=$W/data XDG_CACHE_HOME=$W/cache XDG_CONFIG_HOME=$W/config
export KWOK_WORKDIR=$W/kwok KUBECONFIG= LABMATE_LAB= LABMATE_ROOT= TERM=xterm-256color LANG=C.UTF-8 LC_ALL= NO_COLOR= TMUX=
unset LABMATE_SANDBOX_MIRROR
REPO=$(cd "$(dirname "$0")/.." && pwd)
n=0
norm() { sed -E -e "s#$W#<W>#g" -e "s#$REPO#<REPO>#g" -e 's#(@[^/ ]+/)[0-9a-f]{12}/#\1<ROOT>/#g' -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9:]+| UTC)?/<TIME>/g' \
  -e 's/"(at|written|started_at|passed_at|elapsed)": *"[^"]*"/"\1": "<T>"/g' -e 's/[0-9]+(\.[0-9]+)?(ms|µs|s)\b/<DUR>/g' \
  -e 's/127\.0\.0\.1:[0-9]+/127.0.0.1:<PORT>/g' -e 's/damaged-[0-9T:.Z-]+/damaged-<T>/g' \
  -e 's/[0-9]+(\.[0-9]+)?초/<초>/g' -e 's/"elapsed_ns": [0-9]+/"elapsed_ns": <N>/' -e 's/\.tmp\b|\.[0-9]+\.tmp/.<N>.tmp/g'; }
run() { # run NAME [stdin-file] -- ARGS...
  local name=${1//\//_}; shift; local in=/dev/null
  if [ "$1" != "--" ]; then in=$1; shift; fi; shift
  n=$((n+1)); local f; f=$(printf '%s/%03d-%s' "$OUT" "$n" "$name")
  (cd "$W" && timeout 300 "$BIN" "$@" <"$in" >"$f.out" 2>"$f.err"; echo $? >"$f.code")
  printf '%s\n' "$*" | norm >"$f.args"
  norm <"$f.out" >"$f.out.n" && mv "$f.out.n" "$f.out"; norm <"$f.err" >"$f.err.n" && mv "$f.err.n" "$f.err"
}
# --- help of every command
for c in "" check replay report reset doctor version completion help sandbox "sandbox up" "sandbox down" "sandbox status" "sandbox build" "sandbox bundle" \
  lab "lab list" "lab install" "lab pack" "lab remove" "lab verify" "lab rbac" class "class init" "class board" "class export" "class report" \
  "class preview" "class lab" "class lab push"; do
  run "help-${c// /_}" -- $c --help
  run "helpcmd-${c// /_}" -- help $c
done
for sh in bash zsh fish powershell; do run "completion-$sh" -- completion $sh; done
run version -- version
# --- completions
run comp-root -- __complete ""
run comp-lab -- __complete --lab ""
run comp-step -- __complete check --step ""  --lab gpu-incident
run comp-class -- __complete class ""
run comp-class-init-flags -- __complete class init --
run comp-class-export-flags -- __complete class export --
run comp-sandbox -- __complete sandbox ""
# --- usage errors
for a in "--bogus" "-x" "chekc" "check --step x" "check --step" "check extra" "check --replay reference --watch" "replay a b" "sandbox" \
  "sandbox sideways" "completion tcsh" "help nope" "report --timeout soon" "lab" "class" "class lab" "lab verify --mutants-shard 4/3 gpu-incident" \
  "lab verify a b" "lab rbac --user u --group g" "check --lab gpu-incident --lab-dir /tmp" "class export --format xml" "class report" \
  "sandbox bundle" "class lab push" "lab install" "lab verify --watch gpu-incident" "lab verify --mutants --record x gpu-incident" "sandbox up --sha256 nothex --name labmate-clidump"; do
  run "usage-${a// /_}" -- $a
done
# --- no lab chosen
run nolab-check -- check --root "$W/root" --no-cluster
run nolab-report -- report --root "$W/root" --no-cluster
run nolab-sandbox-up -- sandbox up --name labmate-clidump
run nolab-doctor -- doctor --root "$W/root" --no-cluster
# --- check
cp -r $REPO/content/labs/gpu-incident/reference/etc "$W/root2/" 2>/dev/null
run check-json -- check --lab gpu-incident --root "$W/root" --no-cluster --json --state-dir "$W/st1"
run check-table -- check --lab gpu-incident --root "$W/root" --no-cluster --state-dir "$W/st1"
run check-step1 -- check --lab gpu-incident --root "$W/root2" --no-cluster --step 1 --state-dir "$W/st1"
run check-step9 -- check --lab gpu-incident --root "$W/root2" --no-cluster --step 9
run check-nokube -- check --lab gpu-incident --root "$W/root" --json --state-dir "$W/st2"
run check-missingkc -- check --lab gpu-incident --root "$W/root" --kubeconfig "$W/none.yaml"
run check-driver -- check --lab driver-reboot --root "$W/root" --state-dir "$W/st3"
run check-replay -- check --replay reference --json
run check-replay5 -- check --replay reference --step 5 --lab gpu-incident
run check-replay-bad -- check --replay "$REPO/trace/testdata/bad/corrupt-middle.jsonl"
run check-replay-missing -- check --replay "$W/missing.jsonl"
run check-rootfile -- check --lab gpu-incident --root "$REPO/go.mod"
run check-env -- check --lab driver-reboot --lab-dir "$REPO/content/labs/driver-reboot" --root "$W/root" --no-cluster
run check-labdir -- check --lab-dir "$REPO/content/labs/driver-reboot" --root "$W/root" --no-cluster --json --state-dir "$W/st4"
# --- report
run report-md -- report --lab gpu-incident --root "$W/root2" --no-cluster --state-dir "$W/st5"
run report-json -- report --lab gpu-incident --root "$W/root2" --no-cluster --state-dir "$W/st5" --json
run report-trace -- report --trace reference --lab gpu-incident --json
run report-trace-md -- report --trace reference --lab gpu-incident
run report-unwritable -- report --lab gpu-incident --root "$W/root" --no-cluster -o "$W/no/such/r.md"
run report-out -- report --lab gpu-incident --root "$W/root" --no-cluster -o "$W/out/r.md" --state-dir "$W/st5"
# --- replay
run replay-notui -- replay --no-tui --speed instant --lab gpu-incident
run replay-file -- replay "$REPO/trace/testdata/good/all-kinds.jsonl" --no-tui --speed instant
run replay-bad -- replay "$REPO/trace/testdata/bad/newer-version.jsonl" --no-tui
run replay-speed -- replay --speed fast --no-tui
run replay-trunc -- replay --no-tui --speed instant "$REPO/trace/testdata/bad/truncated-last.jsonl"
# --- reset
run check-seed -- check --lab gpu-incident --root "$W/root2" --no-cluster --state-dir "$W/st6" --step 1
printf 'n\n' >"$W/no"; printf 'y\n' >"$W/yes"
run reset-no "$W/no" -- reset --lab gpu-incident --root "$W/root2" --state-dir "$W/st6"
run reset-closed -- reset --lab gpu-incident --root "$W/root2" --state-dir "$W/st6"
run reset-yes "$W/yes" -- reset --lab gpu-incident --root "$W/root2" --state-dir "$W/st6" --step 1
run reset-again -- reset --lab gpu-incident --root "$W/root2" --state-dir "$W/st6" --yes
run reset-badstep -- reset --lab gpu-incident --step 9
# --- doctor
run doctor-nocluster -- doctor --lab gpu-incident --no-cluster --root "$W/root" --state-dir "$W/st7"
run doctor-json -- doctor --lab gpu-incident --no-cluster --root "$W/root" --state-dir "$W/st7" --json
run doctor-nokube -- doctor --lab gpu-incident --root "$W/root" --state-dir "$W/st7"
run doctor-all -- doctor --root "$W/root" --state-dir "$W/st7"
run doctor-class -- doctor --lab gpu-incident --no-cluster --root "$W/root" --class "$W/none.yaml"
# --- lab
run lab-list -- lab list
run lab-list-json -- lab list --json
run lab-rbac -- lab rbac driver-reboot --serviceaccount lab:reader
run lab-rbac-bad -- lab rbac --serviceaccount reader --lab gpu-incident
run lab-rbac-nolab -- lab rbac no-such-lab
run lab-pack -- lab pack "$REPO/content/labs/driver-reboot" -o "$W/out/dr.tar.gz"
run lab-pack-missing -- lab pack "$W/nolab"
run lab-install -- lab install "$W/out/dr.tar.gz"
run lab-install-missing -- lab install "$W/none.tar.gz"
run lab-list2 -- lab list
run check-installed -- check --lab driver-reboot@installed --root "$W/root" --no-cluster --state-dir "$W/st8"
run lab-remove -- lab remove driver-reboot
run lab-remove-again -- lab remove driver-reboot
run lab-verify-nokube -- lab verify driver-reboot
run lab-verify-file -- lab verify "$REPO/cmd/cli/testdata/none"
# --- class
run class-init-nokc -- class init --learners 2 --out "$W/out/class"
run class-init-nolearners -- class init --out "$W/out/class"
run class-init-badlab -- class init --learners 2 --out "$W/out/class" --lab no-such-lab
run class-export-nokc -- class export -n class
run class-export-missing -- class export -n class --kubeconfig "$W/none.yaml"
run class-report-from -- class report --from "$REPO/class/classreport/testdata/class.json" --html "$W/out/report.html"
run class-report-hash -- class report --from "$REPO/class/classreport/testdata/class.json" --html "$W/out/report.html" --kubeconfig /nonexistent
run class-report-badfrom -- class report --from "$W/none.json" --html "$W/out/r2.html"
run class-preview -- class preview --lab gpu-incident --no-cluster --root "$W/root"
run class-preview-badclass -- class preview --lab gpu-incident --no-cluster --root "$W/root" --class "$W/none.yaml"
run class-lab-push-builtin -- class lab push gpu-incident
run class-lab-push-nolab -- class lab push no-such-lab
run class-board-nokc -- class board
# --- sandbox
run sandbox-status -- sandbox status --name labmate-clidump
run sandbox-status-lab -- sandbox status --name labmate-clidump --lab gpu-incident
run sandbox-down -- sandbox down --name labmate-clidump
run sandbox-bundle-empty -- sandbox bundle --bin-dir "$W/emptybin" -o "$W/out/b.tar.gz"
# --- a kwok sandbox
if [ "${DUMP_KWOK:-0}" = 1 ]; then
BINDIR=${LABMATE_BIN_DIR:-$HOME_REAL/.cache/labmate/cluster/v1.34}
SB=labmate-clidump
KC=$W/kwok/clusters/$SB/kubeconfig.yaml
run kwok-up -- sandbox up --lab driver-reboot --name $SB --bin-dir "$BINDIR"
run kwok-status -- sandbox status --lab driver-reboot --name $SB --bin-dir "$BINDIR"
run kwok-check -- check --lab driver-reboot --kubeconfig "$KC" --root "$W/root" --json --state-dir "$W/k1"
run kwok-check-table -- check --lab driver-reboot --kubeconfig "$KC" --root "$W/root" --state-dir "$W/k1"
run kwok-check-ctx -- check --lab driver-reboot --kubeconfig "$KC" --context nope --root "$W/root"
run kwok-report -- report --lab driver-reboot --kubeconfig "$KC" --root "$W/root" --state-dir "$W/k1" --json
run kwok-doctor -- doctor --lab driver-reboot --kubeconfig "$KC" --root "$W/root" --state-dir "$W/k1" --json
run kwok-class-init -- class init --kubeconfig "$KC" -n class46 --learners 2 --out "$W/out/class" --lab driver-reboot
run kwok-class-export -- class export --kubeconfig "$KC" -n class46
run kwok-class-export-csv -- class export --kubeconfig "$KC" -n class46 --format csv
run kwok-class-push -- class lab push driver-reboot --kubeconfig "$KC" -n class46
run kwok-class-push-same -- class lab push driver-reboot --kubeconfig "$KC" -n class46
run kwok-class-check -- check --class "$W/out/class/learner-01.kubeconfig" --root "$W/root" --no-cluster --json --state-dir "$W/k2"
run kwok-class-preview -- class preview --class "$W/out/class/learner-01.kubeconfig" --root "$W/root" --no-cluster --state-dir "$W/k2"
run kwok-class-doctor -- doctor --class "$W/out/class/learner-01.kubeconfig" --lab driver-reboot --no-cluster --root "$W/root"
run kwok-class-report -- class report --kubeconfig "$KC" -n class46 --html "$W/out/class.html"
run kwok-verify -- lab verify driver-reboot --kubeconfig "$KC" --bin-dir "$BINDIR"
run kwok-down -- sandbox down --name $SB --bin-dir "$BINDIR"
fi
# the files the commands wrote
(cd "$W" && find . \( -path ./home -o -path ./kwok \) -prune -o -type f -print | sed -E 's/damaged-[^/]*/damaged-<T>/' | norm | sort) >"$OUT/zz-files"
sha256sum "$W/out/report.html" "$W/out/dr.tar.gz" 2>&1 | sed "s#$W#W#" >"$OUT/zz-sums"
