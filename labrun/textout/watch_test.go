package textout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/state"
)

// check --watch's loop (Watch) on a run of a small file lab: a line per
// status change, nothing when no status changed, the first record after
// the ready timeout when a source never syncs.

// lines is an io.Writer that a test can read while another goroutine
// writes to it.
type lines struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimSuffix(l.buf.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// waitLines waits until at least n lines were written.
// patience is the least time a test waits for what must come: a wait
// that is met returns at once, so a long one costs nothing when the code
// is right, and a loaded 2-core machine (the whole suite, or two burning
// loops beside it) still meets it. Callers' shorter windows say what they
// expect; they are raised to this.
const patience = 30 * time.Second

func (l *lines) waitLines(t *testing.T, n int, within time.Duration) []string {
	t.Helper()
	within = max(within, patience)
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if got := l.all(); len(got) >= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("waited %v for %d lines, have %d:\n%s", within, n, len(l.all()), strings.Join(l.all(), "\n"))
	return nil
}

// quiet asserts that nothing more is written during window.
func (l *lines) quiet(t *testing.T, have int, window time.Duration) {
	t.Helper()
	time.Sleep(window)
	if got := l.all(); len(got) != have {
		t.Fatalf("%d new line(s) while no status changed:\n%s", len(got)-have, strings.Join(got[have:], "\n"))
	}
}

// fileLab is a two-step lab whose steps pass when one.txt / two.txt hold
// "ok". A failing check's message quotes the content, so a content
// change that keeps the status still changes the engine's report: watch
// must print on status changes only.
func fileLab(t *testing.T, root string, extra ...observe.Source) (*labrun.Run, *state.Store) {
	t.Helper()
	lab := &content.Lab{ID: "watch-test", Title: "watch test", Steps: []content.Step{
		{Number: 1, ID: "one", Title: "one"}, {Number: 2, ID: "two", Title: "two"},
	}}
	okFile := func(path string) func(checks.Input) checks.StepEval {
		return func(in checks.Input) checks.StepEval {
			f := in.Snap.File(path)
			st := checks.Failed
			if f.State == observe.FilePresent && strings.TrimSpace(string(f.Content)) == "ok" {
				st = checks.Passed
			}
			return checks.StepEval{Checks: []checks.Result{{ID: path, Status: st, Message: fmt.Sprintf("%s: %s %q", path, f.State, f.Content)}}}
		}
	}
	steps := []checks.Step{
		{Number: 1, ID: "one", Files: []string{"one.txt"}, Eval: okFile("one.txt")},
		{Number: 2, ID: "two", Files: []string{"two.txt"}, Eval: okFile("two.txt")},
	}
	store, err := state.Open(t.TempDir(), lab.ID, root)
	if err != nil {
		t.Fatal(err)
	}
	return fileSetup(t, lab, steps, root, store, extra...), store
}

// fileSetup wires a run of the steps over root with no cluster, plus any
// extra sources.
func fileSetup(t *testing.T, lab *content.Lab, steps []checks.Step, root string, store *state.Store, extra ...observe.Source) *labrun.Run {
	t.Helper()
	run, err := labrun.New(labrun.Options{Lab: lab, Steps: steps, Root: root, Progress: store,
		Sources: extra})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Stop() })
	return run
}

// write replaces path with text as editors save: a temp file renamed
// over it, so the watcher reads the old text or the new, never a file
// half written. (A rewrite in place may be read truncated; with the
// writer stalled past the settle window on a loaded machine, that read
// would rightly be shown as a change of its own.)
func write(t *testing.T, path, text string) {
	t.Helper()
	tmp := path + ".tmp~"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// startWatch runs check --watch's loop on run until the test ends and
// returns its output and a function that stops it and returns the exit
// code: 0 when its context ends, 2 when stdout refuses a line.
func startWatch(t *testing.T, run *labrun.Run, o Watch) (*lines, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &lines{}, &lines{}
	code := make(chan int, 1)
	go func() {
		if err := o.Run(ctx, run, out); err != nil {
			fmt.Fprintln(errOut, err)
			code <- 2
			return
		}
		code <- 0
	}()
	stop := func() int {
		cancel()
		select {
		case c := <-code:
			if e := errOut.all(); len(e) > 0 {
				t.Errorf("stderr: %s", strings.Join(e, "\n"))
			}
			return c
		case <-time.After(patience):
			t.Fatalf("watch did not return within %v of its context's end", patience)
			return -1
		}
	}
	t.Cleanup(func() { cancel() })
	return out, stop
}

func decode(t *testing.T, line string) Record {
	t.Helper()
	var r Record
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("not a JSON line: %v\n%s", err, line)
	}
	if r.At.IsZero() {
		t.Fatalf("record without a timestamp: %s", line)
	}
	return r
}

func TestWatchJSONOneLinePerStatusChange(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "one.txt"), "no\n")
	s, store := fileLab(t, root)
	out, stop := startWatch(t, s, Watch{JSON: true})

	first := decode(t, out.waitLines(t, 1, 5*time.Second)[0])
	if len(first.Steps) != 2 || first.Steps[0].Status != checks.Failed || first.Steps[1].Status != checks.Failed || len(first.Changed) != 0 {
		t.Fatalf("first record: %+v", first)
	}
	if first.Lab != "watch-test" || !first.Ready {
		t.Fatalf("first record is not the check --json shape of a ready report: %+v", first.Report)
	}
	out.quiet(t, 1, 1500*time.Millisecond)

	write(t, filepath.Join(root, "one.txt"), "ok\n")
	got := out.waitLines(t, 2, 3*time.Second)
	rec := decode(t, got[1])
	if len(rec.Changed) != 1 || rec.Changed[0] != (Change{Number: 1, From: checks.Failed, To: checks.Passed}) {
		t.Fatalf("changed = %+v, want step 1 failed->passed", rec.Changed)
	}
	if rec.Steps[0].Status != checks.Passed || rec.Steps[1].Status != checks.Failed {
		t.Fatalf("statuses after the change: %+v", rec.Steps)
	}
	if !rec.At.After(first.At) {
		t.Errorf("timestamps do not advance: %v then %v", first.At, rec.At)
	}

	// Changes that keep every status: the same content rewritten, step 2
	// going from missing to wrong (a new message, still failed), and a
	// file no step reads.
	write(t, filepath.Join(root, "one.txt"), "ok\n")
	write(t, filepath.Join(root, "two.txt"), "wrong\n")
	write(t, filepath.Join(root, "unrelated.txt"), "x")
	out.quiet(t, 2, 1500*time.Millisecond)

	// And back: exactly one line with the new status.
	os.Remove(filepath.Join(root, "one.txt"))
	got = out.waitLines(t, 3, 3*time.Second)
	if rec := decode(t, got[2]); len(rec.Changed) != 1 || rec.Changed[0].To != checks.Failed || rec.Steps[0].Status != checks.Failed {
		t.Fatalf("after delete: %+v", rec.Changed)
	}
	out.quiet(t, 3, 500*time.Millisecond)

	if code := stop(); code != 0 {
		t.Errorf("exit code %d after the context ended, want 0", code)
	}
	f, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if at, ok := f.Progress.PassedAt[1]; !ok || at.Before(first.At) {
		t.Errorf("step 1's first pass not recorded: %+v", f.Progress.PassedAt)
	}
	if _, ok := f.Progress.PassedAt[2]; ok {
		t.Error("step 2 recorded as passed")
	}
}

func TestWatchTableRows(t *testing.T) {
	root := t.TempDir()
	s, _ := fileLab(t, root)
	clock := time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local)
	var mu sync.Mutex
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	out, stop := startWatch(t, s, Watch{Now: now})
	got := out.waitLines(t, 2, 5*time.Second)
	if !strings.HasPrefix(got[0], "2026-11-30 10:00:") || !strings.Contains(got[0], "watch test") {
		t.Errorf("start line: %q", got[0])
	}
	if !strings.HasPrefix(got[1], "2026-11-30 10:00:") || !strings.Contains(got[1], "1 미통과") || !strings.Contains(got[1], "2 미통과") {
		t.Errorf("first row: %q", got[1])
	}
	write(t, filepath.Join(root, "two.txt"), "ok")
	got = out.waitLines(t, 3, 3*time.Second)
	row := got[2]
	if !strings.Contains(row, "1 미통과") || !strings.Contains(row, "2 통과") || !strings.Contains(row, "2단계 미통과 -> 통과") {
		t.Errorf("row after step 2 passed: %q", row)
	}
	out.quiet(t, 3, 1500*time.Millisecond)
	write(t, filepath.Join(root, "two.txt"), "nope")
	got = out.waitLines(t, 4, 3*time.Second)
	if !strings.Contains(got[3], `2단계 통과 -> 미통과: two.txt: present "nope"`) {
		t.Errorf("a row for a failing change names the first problem: %q", got[3])
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestWatchOneStep(t *testing.T) {
	root := t.TempDir()
	s, _ := fileLab(t, root)
	out, stop := startWatch(t, s, Watch{JSON: true, Step: 2})
	if rec := decode(t, out.waitLines(t, 1, 5*time.Second)[0]); len(rec.Steps) != 1 || rec.Steps[0].Number != 2 {
		t.Fatalf("--step 2 printed %+v", rec.Steps)
	}
	write(t, filepath.Join(root, "one.txt"), "ok") // another step: no line
	out.quiet(t, 1, 1500*time.Millisecond)
	write(t, filepath.Join(root, "two.txt"), "ok")
	if rec := decode(t, out.waitLines(t, 2, 3*time.Second)[1]); rec.Steps[0].Status != checks.Passed {
		t.Fatalf("step 2 after it passed: %+v", rec.Steps)
	}
	stop()
}

// stuckSource never delivers its initial state.
type stuckSource struct{}

func (stuckSource) Name() string { return "stuck" }

func (stuckSource) Run(ctx context.Context, out chan<- observe.Observation) error {
	<-ctx.Done()
	return nil
}

func TestWatchPrintsAfterReadyTimeout(t *testing.T) {
	root := t.TempDir()
	s, _ := fileLab(t, root, stuckSource{})
	start := time.Now()
	out, stop := startWatch(t, s, Watch{JSON: true, ReadyTimeout: 400 * time.Millisecond})
	rec := decode(t, out.waitLines(t, 1, 3*time.Second)[0])
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Errorf("printed after %v, before the ready timeout", took)
	}
	if rec.Ready || len(rec.Problems) == 0 || !strings.Contains(rec.Problems[len(rec.Problems)-1], "0.4초 안에") {
		t.Errorf("first record without the not-ready note: ready=%v problems=%v", rec.Ready, rec.Problems)
	}
	stop()
}
