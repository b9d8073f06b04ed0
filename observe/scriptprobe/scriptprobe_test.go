package scriptprobe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/labmate/observe"
)

const scriptPath = "bin/check-feature.sh"

// A lab in small: a script must tell from `svctl show config` whether
// the feature alpha is on.
var testSpec = observe.ProbeSpec{
	Script:      scriptPath,
	FakeCommand: "svctl",
	Scenarios: []observe.Scenario{
		{Name: "on", Stdout: "mode = 2\n[features.alpha]\n  enabled = true\n[features.beta]\n  enabled = true\n"},
		{Name: "off", Stdout: "mode = 2\n[features.beta]\n  enabled = true\n"},
	},
}

// referenceScript is a correct answer of that lab.
const referenceScript = "#!/bin/sh\n" +
	"if svctl show config | grep -qF 'features.alpha'; then\n  echo 'alpha is on'\n  exit 0\nfi\n" +
	"echo 'alpha is NOT on'\nexit 1\n"

// harness runs a Prober the way the engine does: Run in a goroutine,
// Offer from the test.
type harness struct {
	t      *testing.T
	p      *Prober
	out    chan observe.Observation
	cancel context.CancelFunc
	done   chan error
}

// testTimeout gives opts a 30 s Timeout where it has none. A test that
// leaves Timeout zero runs scripts that must end on their own; the
// shipped 5 s could end one of them on a loaded machine, and the test
// would then fail, or pass having seen less than it meant to. A script
// that ends by itself costs nothing more; the tests of the timeout set
// their own.
func testTimeout(opts Options) Options {
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	return opts
}

func start(t *testing.T, root string, specs []observe.ProbeSpec, opts Options) *harness {
	t.Helper()
	opts = testTimeout(opts)
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, p: New(root, specs, opts), out: make(chan observe.Observation, 16), cancel: cancel, done: make(chan error, 1)}
	go func() { h.done <- h.p.Run(ctx, h.out) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Run did not return within 30 s of cancel")
		}
	})
	return h
}

func (h *harness) next(timeout time.Duration) (observe.Observation, bool) {
	select {
	case o := <-h.out:
		return o, true
	case <-time.After(timeout):
		return observe.Observation{}, false
	}
}

// runs collects n script observations (skipping Synced) by scenario.
func (h *harness) runs(n int, timeout time.Duration) map[string]observe.ScriptObs {
	h.t.Helper()
	got := map[string]observe.ScriptObs{}
	deadline := time.Now().Add(timeout)
	for len(got) < n {
		o, ok := h.next(time.Until(deadline))
		if !ok {
			h.t.Fatalf("got %d of %d script runs within %v", len(got), n, timeout)
		}
		if o.Script != nil {
			got[o.Script.Scenario] = *o.Script
		}
	}
	return got
}

// quiet asserts no script observation arrives for d.
func (h *harness) quiet(d time.Duration) {
	h.t.Helper()
	deadline := time.Now().Add(d)
	for {
		o, ok := h.next(time.Until(deadline))
		if !ok {
			return
		}
		if o.Script != nil {
			h.t.Fatalf("unexpected run: %+v", *o.Script)
		}
	}
}

func present(content string, mode fs.FileMode) observe.FileObs {
	return observe.FileObs{Path: scriptPath, State: observe.FilePresent, Content: []byte(content), Size: int64(len(content)), Mode: mode}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// probeOnce runs one script through both scenarios. The runs must come
// within the run's timeout (a script that hangs ends there) and 30 s more
// for a loaded machine. Without a Timeout of its own the run gets 30 s
// (see testTimeout).
func probeOnce(t *testing.T, content string, mode fs.FileMode, opts Options) map[string]observe.ScriptObs {
	t.Helper()
	opts = testTimeout(opts)
	if opts.TempDir == "" {
		opts.TempDir = reachableTempDir(t)
	}
	h := start(t, t.TempDir(), []observe.ProbeSpec{testSpec}, opts)
	h.p.Offer(present(content, mode))
	runs := h.runs(2, opts.withDefaults().Timeout+30*time.Second)
	for _, r := range runs {
		if r.ContentSHA != sha(content) || r.Script != scriptPath {
			t.Errorf("run %s: script %q sha %s, want %q %s", r.Scenario, r.Script, r.ContentSHA, scriptPath, sha(content))
		}
	}
	if left, _ := os.ReadDir(opts.TempDir); len(left) != 0 {
		t.Errorf("run directories left behind in %s: %v", opts.TempDir, left)
	}
	return runs
}

func TestReferenceScriptPassesBothScenarios(t *testing.T) {
	runs := probeOnce(t, referenceScript, 0o755, Options{})
	if r := runs["on"]; r.ExitCode != 0 || r.Start != nil || r.TimedOut || !strings.Contains(r.Output, "is on") {
		t.Errorf("on run: %+v", r)
	}
	if r := runs["off"]; r.ExitCode != 1 || !strings.Contains(r.Output, "NOT on") {
		t.Errorf("off run: %+v", r)
	}
	for name, r := range runs {
		if fmt.Sprint(r.FakeArgv) != "[[show config]]" {
			t.Errorf("%s: fake argv %q, want [[show config]]", name, r.FakeArgv)
		}
	}
}

func TestFakeRecordsEveryCallExactly(t *testing.T) {
	script := "#!/bin/sh\nsvctl show config >/dev/null\nsvctl --address '/run/a b.sock' 'multi\nline' ''\nexit 0\n"
	runs := probeOnce(t, script, 0o755, Options{})
	want := [][]string{{"show", "config"}, {"--address", "/run/a b.sock", "multi\nline", ""}}
	if got := runs["on"].FakeArgv; fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("argv %q, want %q", got, want)
	}
}

func TestFakePrintsScenarioOutputExactly(t *testing.T) {
	runs := probeOnce(t, "#!/bin/sh\nsvctl show config\n", 0o755, Options{})
	for _, sc := range testSpec.Scenarios {
		if got := runs[sc.Name].Output; got != sc.Stdout {
			t.Errorf("%s output %q, want %q; run %+v", sc.Name, got, sc.Stdout, runs[sc.Name])
		}
	}
}

func TestEnvironmentIsPrivate(t *testing.T) {
	script := "#!/bin/sh\necho \"pwd=$(pwd)\"\necho \"home=$HOME\"\necho \"tmp=$TMPDIR\"\necho \"path=$PATH\"\nread x && echo \"stdin=$x\"\necho done\n"
	tmp := reachableTempDir(t)
	// Host paths: the mode without a mount namespace.
	runs := probeOnce(t, script, 0o755, Options{TempDir: tmp, Sandbox: SandboxNone})
	out := runs["on"].Output
	for _, want := range []string{"pwd=" + tmp, "home=" + tmp, "tmp=" + tmp, "path=" + tmp} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "stdin=") || !strings.Contains(out, "done") {
		t.Errorf("stdin is not closed: %q", out)
	}
}

func TestNotExecutableIsReportedNotRun(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	runs := probeOnce(t, "#!/bin/sh\ntouch "+marker+"\n", 0o644, Options{})
	for name, r := range runs {
		if r.StartErr != NotExecutable || r.ExitCode != -1 || r.FakeArgv != nil {
			t.Errorf("%s: %+v", name, r)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a non-executable script was run anyway")
	}
}

func TestNoShebangCannotStart(t *testing.T) {
	runs := probeOnce(t, "svctl show config | grep -q alpha\n", 0o755, Options{})
	for name, r := range runs {
		if !strings.Contains(r.StartErr, "exec format error") || r.ExitCode != -1 {
			t.Errorf("%s: start err %q exit %d, want exec format error", name, r.StartErr, r.ExitCode)
		}
		if strings.Contains(r.StartErr, "labmate-probe") {
			t.Errorf("%s: start error leaks the temp path: %q", name, r.StartErr)
		}
	}
}

func TestMissingInterpreter(t *testing.T) {
	runs := probeOnce(t, "#!/no/such/shell\nexit 0\n", 0o755, Options{})
	if r := runs["on"]; !strings.Contains(r.StartErr, "no such file") {
		t.Errorf("start err %q", r.StartErr)
	}
}

func TestSyntaxError(t *testing.T) {
	runs := probeOnce(t, "#!/bin/sh\nif then fi\n", 0o755, Options{})
	for name, r := range runs {
		if r.ExitCode == 0 || r.ExitCode == -1 || !strings.Contains(strings.ToLower(r.Output), "syntax") {
			t.Errorf("%s: exit %d output %q", name, r.ExitCode, r.Output)
		}
	}
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func pidsFrom(t *testing.T, name string) []int {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// assertAllGone waits until every one of pids is gone: killed processes
// end (and are reaped) in their own time, 30 s at most on a loaded
// machine.
func assertAllGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d survived the run", pid)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// untilStarted probes a script that hangs once it printed mark, so that
// its timeout ends it: probe runs it with timeout, and again with twice
// the timeout while a run timed out before printing mark, up to a
// timeout of 30 s or more. The timeout is the case under test, but the
// script's getting to its hang is a must, and a loaded machine may take
// longer than the first timeout for that (at load 24, 500 ms ended a
// script before its first line). It returns the runs and their timeout.
func untilStarted(t *testing.T, mark string, timeout time.Duration, probe func(timeout time.Duration) map[string]observe.ScriptObs) (map[string]observe.ScriptObs, time.Duration) {
	t.Helper()
	for {
		runs := probe(timeout)
		started := true
		for _, r := range runs {
			started = started && strings.Contains(r.Output, mark)
		}
		if started || timeout >= 30*time.Second {
			return runs, timeout
		}
		t.Logf("a run ended by its %v timeout before it printed %q (a loaded machine): again with %v", timeout, mark, 2*timeout)
		timeout *= 2
	}
}

func TestHangingScriptIsKilledWithItsChildren(t *testing.T) {
	pidFile := filepath.Join(sharedDir(t), "pids")
	script := "#!/bin/sh\n" +
		"sleep 1000 &\necho $! >> " + pidFile + "\n" +
		"sh -c 'echo $$ >> " + pidFile + "; exec sleep 1000' &\n" +
		"echo $$ >> " + pidFile + "\n" +
		"echo started\n" +
		"while :; do sleep 1; done\n"
	// The pid file lies outside the run directory: only the mode without
	// a sandbox lets the script write it (sandbox_test covers the others).
	// That the runs come at all is what bounds them: the script never
	// ends by itself (probeOnce waits the timeout and 30 s more).
	runs, timeout := untilStarted(t, "started", 5*time.Second, func(timeout time.Duration) map[string]observe.ScriptObs {
		if _, err := os.Stat(pidFile); err == nil {
			// An earlier try timed out before the script started: what it
			// did start must be gone too. It is checked now, right after
			// that try, not after the last one: by then a busy machine
			// could have given one of its pids to an unrelated process.
			assertAllGone(t, pidsFrom(t, pidFile))
			if err := os.Remove(pidFile); err != nil {
				t.Fatal(err)
			}
		}
		return probeOnce(t, script, 0o755, Options{Timeout: timeout, Sandbox: SandboxNone})
	})
	for name, r := range runs {
		if !r.TimedOut || r.ExitCode != -1 || !strings.Contains(r.Output, "started") {
			t.Errorf("%s: %+v", name, r)
		}
		if r.Duration < timeout {
			t.Errorf("%s: duration %v, shorter than the timeout %v", name, r.Duration, timeout)
		}
	}
	pids := pidsFrom(t, pidFile)
	if len(pids) != 6 { // three per scenario
		t.Fatalf("pids %v", pids)
	}
	assertAllGone(t, pids)
}

func TestBackgroundChildOfAFinishedScriptIsKilled(t *testing.T) {
	pidFile := filepath.Join(sharedDir(t), "pids")
	// The child keeps stdout open: without killing the group, reading
	// the output would wait for it, until the timeout ended the run
	// (timed out, exit -1). How long the run took is not asserted: the
	// script ends at once, but a loaded machine decides when.
	script := "#!/bin/sh\nsleep 1000 &\necho $! >> " + pidFile + "\necho bye\nexit 0\n"
	runs := probeOnce(t, script, 0o755, Options{Timeout: 30 * time.Second, Sandbox: SandboxNone})
	for name, r := range runs {
		if r.TimedOut || r.ExitCode != 0 || strings.TrimSpace(r.Output) != "bye" {
			t.Errorf("%s: %+v", name, r)
		}
	}
	assertAllGone(t, pidsFrom(t, pidFile))
}

func TestHugeOutputIsCappedToItsTail(t *testing.T) {
	const capBytes = 64 << 10
	script := "#!/bin/sh\nhead -c 50000000 /dev/zero | tr '\\000' 'x'\necho\necho END-MARKER\nexit 3\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	runs := probeOnce(t, script, 0o755, Options{OutputCap: capBytes, Timeout: 30 * time.Second})
	runtime.ReadMemStats(&after)
	for name, r := range runs {
		if !r.Truncated || len(r.Output) > capBytes || r.ExitCode != 3 {
			t.Errorf("%s: truncated %v, %d bytes kept, exit %d", name, r.Truncated, len(r.Output), r.ExitCode)
		}
		if !strings.HasSuffix(r.Output, "xxx\nEND-MARKER\n") {
			t.Errorf("%s: tail %q", name, r.Output[max(0, len(r.Output)-40):])
		}
	}
	// Two runs printed 100 MB between them; what the prober allocated
	// must not scale with that.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d MiB while probing", grew>>20)
	}
}

func TestRerunsOnlyWhenContentOrExecBitChanges(t *testing.T) {
	counter := filepath.Join(sharedDir(t), "count")
	script := "#!/bin/sh\necho run >> " + counter + "\nsvctl show config >/dev/null\nexit 0\n"
	// The counter lies outside the run directory, writable only unsandboxed.
	h := start(t, t.TempDir(), []observe.ProbeSpec{testSpec}, Options{TempDir: reachableTempDir(t), Sandbox: SandboxNone})
	h.p.Offer(present(script, 0o755))
	first := h.runs(2, 30*time.Second)
	if o, ok := h.next(30 * time.Second); !ok || o.Synced == nil || o.Synced.Source != Name {
		t.Fatalf("want Synced after the first runs, got %+v", o)
	}

	// The same bytes again (a touch, an editor saving unchanged text).
	h.p.Offer(present(script, 0o755))
	h.p.Offer(present(script, 0o775)) // a permission change that keeps it executable
	h.quiet(500 * time.Millisecond)

	// chmod -x, then +x: both change what a run does.
	h.p.Offer(present(script, 0o644))
	if r := h.runs(2, 30*time.Second)["on"]; r.StartErr != NotExecutable {
		t.Errorf("after chmod -x: %+v", r)
	}
	h.p.Offer(present(script, 0o755))
	if r := h.runs(2, 30*time.Second)["on"]; r.ExitCode != 0 {
		t.Errorf("after chmod +x: %+v", r)
	}

	// New content runs again.
	edited := script + "# edited\n"
	second := h.runs2(edited)
	if second["on"].ContentSHA == first["on"].ContentSHA {
		t.Error("edited script reported with the old hash")
	}
	if n := strings.Count(readFile(t, counter), "run"); n != 6 {
		t.Errorf("script ran %d times, want 6 (two scenarios × three executable states)", n)
	}
}

func (h *harness) runs2(content string) map[string]observe.ScriptObs {
	h.p.Offer(present(content, 0o755))
	return h.runs(2, 30*time.Second)
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewerContentSupersedesARunningProbe(t *testing.T) {
	hang := "#!/bin/sh\nwhile :; do sleep 1; done\n"
	good := "#!/bin/sh\nsvctl show config | grep -q features.alpha\n"
	// The stale run's timeout is two minutes: newer content that waited
	// for it would miss the 30 s in which its runs must come.
	h := start(t, t.TempDir(), []observe.ProbeSpec{testSpec}, Options{TempDir: t.TempDir(), Timeout: 2 * time.Minute})
	h.p.Offer(present(hang, 0o755))
	time.Sleep(300 * time.Millisecond) // let the hanging runs start
	h.p.Offer(present(good, 0o755))
	runs := h.runs(2, 30*time.Second)
	for name, r := range runs {
		if r.ContentSHA != sha(good) {
			t.Errorf("%s: a run of the superseded script was reported", name)
		}
	}
	if runs["on"].ExitCode != 0 || runs["off"].ExitCode != 1 {
		t.Errorf("runs %+v", runs)
	}
}

func TestMissingScriptIsNotRunButSyncs(t *testing.T) {
	h := start(t, t.TempDir(), []observe.ProbeSpec{testSpec}, Options{TempDir: t.TempDir()})
	for _, st := range []observe.FileState{observe.FileMissing, observe.FileIsDir, observe.FileUnreadable, observe.FileTooLarge} {
		h.p.Offer(observe.FileObs{Path: scriptPath, State: st})
	}
	o, ok := h.next(30 * time.Second)
	if !ok || o.Synced == nil {
		t.Fatalf("want Synced, got %+v", o)
	}
	h.quiet(300 * time.Millisecond)
}

func TestSyncedWaitsForEverySpec(t *testing.T) {
	other := testSpec
	other.Script = "bin/other.sh"
	h := start(t, t.TempDir(), []observe.ProbeSpec{testSpec, other}, Options{TempDir: t.TempDir()})
	h.p.Offer(observe.FileObs{Path: "unrelated.txt", State: observe.FileMissing})
	h.p.Offer(observe.FileObs{Path: scriptPath, State: observe.FileMissing})
	if o, ok := h.next(300 * time.Millisecond); ok {
		t.Fatalf("synced before every spec was offered: %+v", o)
	}
	h.p.Offer(observe.FileObs{Path: other.Script, State: observe.FileMissing})
	if o, ok := h.next(30 * time.Second); !ok || o.Synced == nil {
		t.Fatalf("want Synced, got %+v", o)
	}
}

func TestNoSpecsSyncsAtOnce(t *testing.T) {
	h := start(t, t.TempDir(), nil, Options{})
	if o, ok := h.next(30 * time.Second); !ok || o.Synced == nil || o.Synced.Source != Name {
		t.Fatalf("want Synced, got %+v", o)
	}
}

func TestNeverWritesIntoTheLabRoot(t *testing.T) {
	root := t.TempDir()
	script := "#!/bin/sh\ntouch made-by-script\nsvctl show config > dump.txt\nexit 0\n"
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, scriptPath), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	list := func() string {
		var b bytes.Buffer
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			fmt.Fprintln(&b, p)
			return nil
		})
		return b.String()
	}
	before := list()
	h := start(t, root, []observe.ProbeSpec{testSpec}, Options{TempDir: t.TempDir()})
	// An observation without content makes the prober read the file
	// itself.
	h.p.Offer(observe.FileObs{Path: scriptPath, State: observe.FilePresent, Size: int64(len(script)), Mode: 0o755})
	runs := h.runs(2, 30*time.Second)
	if runs["on"].ContentSHA != sha(script) || runs["on"].ExitCode != 0 {
		t.Errorf("run %+v", runs["on"])
	}
	if after := list(); after != before {
		t.Errorf("lab root changed:\n%s\nwas\n%s", after, before)
	}
}

func TestTailKeepsTheLastBytes(t *testing.T) {
	var all bytes.Buffer
	tl := newTail(10)
	for i, chunk := range []string{"abc", "defgh", "ijklmnopq", "r", "stuvwxyz0123", "45", "", "6789"} {
		all.WriteString(chunk)
		tl.Write([]byte(chunk))
		want := all.String()
		if len(want) > 10 {
			want = want[len(want)-10:]
		}
		got, trunc := tl.String()
		if got != want || trunc != (all.Len() > 10) {
			t.Errorf("after chunk %d: %q %v, want %q %v", i, got, trunc, want, all.Len() > 10)
		}
	}
	// A cut through a multi-byte character does not leave half of it.
	tl = newTail(4)
	tl.Write([]byte("가나"))
	if got, _ := tl.String(); got != "나" {
		t.Errorf("got %q, want 나", got)
	}
}

func TestOutputNamesTheLearnersScript(t *testing.T) {
	root := t.TempDir()
	h := start(t, root, []observe.ProbeSpec{testSpec}, Options{TempDir: t.TempDir()})
	h.p.Offer(present("#!/bin/sh\nif then fi\n", 0o755))
	r := h.runs(2, 30*time.Second)["on"]
	want := filepath.Join(root, scriptPath) + ": 2: Syntax error"
	if !strings.Contains(r.Output, want) || strings.Contains(r.Output, "labmate-probe") {
		t.Errorf("output %q, want it to contain %q", r.Output, want)
	}
}
