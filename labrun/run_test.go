package labrun

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/trace"
)

// A live run on a temporary root: the first update is the start, saving
// the step's reference file turns it green as a change the stream names,
// the learner's progress keeps the first pass, the taps see every report
// and the trace it records replays to the same verdicts.
func TestLiveRunNamesChangesAndKeepsProgress(t *testing.T) {
	lab, steps := echoLab(t)
	root := t.TempDir()
	store, err := state.Open(t.TempDir(), lab.ID, root)
	if err != nil {
		t.Fatal(err)
	}
	tracePath := filepath.Join(t.TempDir(), "run.jsonl")
	tapped := 0
	var tappedFirst []int // the taps' first passes, in order
	// Step 3 passed in an earlier run: its pass is no first pass now.
	r, err := New(Options{Lab: lab, Steps: steps, Root: root, Progress: store, Passed: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Record(tracePath, "test"); err != nil {
		t.Fatal(err)
	}
	var tapMu sync.Mutex
	r.Tap(func(u Update) {
		tapMu.Lock()
		defer tapMu.Unlock()
		tapped++
		tappedFirst = append(tappedFirst, u.FirstPassed...)
	})
	// Each wait below gets 30 s, for a loaded machine: the whole test a
	// minute.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := r.Start(ctx)
	rep, ok := st.Until(ctx, 30*time.Second, 50*time.Millisecond, func(r engine.Report) bool { return r.Ready })
	if !ok || rep.Step(9).Status != checks.Failed {
		t.Fatalf("start: ready %v, echo step %v", ok, rep.Step(9).Status)
	}
	body, err := os.ReadFile(filepath.Join("..", "content", "labs", lab.ID, "reference", "etc/containerd/config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "etc/containerd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/containerd/config.toml"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	var passed, first []int
	for len(passed) < 2 {
		select {
		case u := <-st.Updates():
			st.Take(u)
			for _, c := range u.Changes {
				if c.Passed() && u.SinceReady {
					passed = append(passed, c.Step)
				}
			}
			first = append(first, u.FirstPassed...)
		case <-ctx.Done():
			t.Fatalf("steps 1 and 9 never turned passed (saw %v)", passed)
		}
	}
	// Step 9 passes on the file being there, step 1 on its content: a
	// write seen in two parts may turn them in either order. Each is a
	// first pass exactly once, in the reader's updates and the taps'.
	slices.Sort(passed)
	slices.Sort(first)
	if !reflect.DeepEqual(passed, []int{1, 9}) || !reflect.DeepEqual(first, []int{1, 9}) {
		t.Fatalf("passed %v, first passes %v, want [1 9] both", passed, first)
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	tapMu.Lock()
	slices.Sort(tappedFirst)
	if tapped == 0 || !reflect.DeepEqual(tappedFirst, []int{1, 9}) {
		t.Errorf("the taps saw %d reports, first passes %v, want [1 9]", tapped, tappedFirst)
	}
	tapMu.Unlock()
	f, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Progress.PassedAt[1]; !ok {
		t.Errorf("the first pass of step 1 was not kept: %+v", f.Progress.PassedAt)
	}
	tr, err := trace.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	final, passes, err := ExactPasses(context.Background(), lab, steps, tr)
	if err != nil {
		t.Fatal(err)
	}
	var replayed []int
	for _, ps := range passes {
		replayed = append(replayed, ps.Step)
	}
	slices.Sort(replayed)
	if final.Step(1).Status != checks.Passed || !reflect.DeepEqual(replayed, []int{1, 9}) {
		t.Fatalf("the recorded run replays to step 1 %v, first passed %v", final.Step(1).Status, replayed)
	}
}

// Once is `labmate check`: the first report after every source synced.
func TestOnceAnswersWhenReady(t *testing.T) {
	lab, steps := echoLab(t)
	r, err := New(Options{Lab: lab, Steps: steps, Root: t.TempDir(), Cluster: kube.Target{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	// The timeout is when Once would answer with a report not ready: every
	// source syncs long before it (30 s, for a loaded machine).
	rep := r.Once(context.Background(), 30*time.Second)
	if !rep.Ready || rep.Cluster.State != "off" || len(rep.Steps) != 9 {
		t.Fatalf("ready %v, cluster %+v, %d steps", rep.Ready, rep.Cluster, len(rep.Steps))
	}
}

// A run over a recorded trace ends with the verdicts the exact
// evaluation of the trace ends with. (Only the verdicts: the run folds
// bursts of records into one evaluation, so a fact of the past may be
// remembered a record later, with that record's time.)
func TestReplayRunEndsLikeExact(t *testing.T) {
	kit := labkittest.Installed(t)[0]
	tr, err := trace.ReferenceOf(kit.Text)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Exact(context.Background(), kit.Text, kit.Steps, tr)
	if err != nil {
		t.Fatal(err)
	}
	r := Replay(kit.Text, kit.Steps, tr, trace.ReplayOptions{Speed: trace.Instant})
	// Longer than the 30 s wait below, so that the run outlives it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := r.Start(ctx)
	defer r.Stop()
	// The trace is done once its last record is handed over; the engine
	// may still be evaluating it (seconds under -race on a busy machine),
	// so the run is waited for until it ends like the exact evaluation,
	// then watched a while longer for a later change.
	same := func(got engine.Report) bool {
		if len(got.Steps) != len(want.Steps) {
			return false
		}
		for i, st := range want.Steps {
			if got.Steps[i].Status != st.Status {
				return false
			}
		}
		return true
	}
	got, ok := st.Until(ctx, 30*time.Second, 300*time.Millisecond, func(rep engine.Report) bool { return r.Trace().Done() && same(rep) })
	if ok {
		got, _ = st.Until(ctx, 2*time.Second, 0, func(engine.Report) bool { return false })
	}
	if len(got.Steps) != len(want.Steps) {
		t.Fatalf("the replay ended with %d steps (done %v), want %d", len(got.Steps), r.Trace().Done(), len(want.Steps))
	}
	for i, st := range want.Steps {
		if got.Steps[i].Status != st.Status {
			t.Errorf("step %d: replayed %s, exact %s", st.Number, got.Steps[i].Status, st.Status)
		}
	}
}

// A failed save of the learner's progress is a problem on the reports
// until a save succeeds, then no longer.
func TestAFailedProgressSaveIsClearedByTheNextSave(t *testing.T) {
	store, err := state.Open(t.TempDir(), "lab", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A directory where the state file goes: every save fails.
	if err := os.MkdirAll(store.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	// The bound of the waits below: a minute for them all, for a loaded
	// machine.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	reports := make(chan engine.Report)
	p := &pump{out: make(chan Update, 1)}
	r := &Run{progress: store}
	go r.forward(ctx, reports, p)
	passed := func(seq uint64) engine.Report {
		return engine.Report{Ready: true, Seq: seq, Time: time.Now(),
			Steps: []engine.StepResult{{Number: 1, ID: "one", Status: checks.Passed}}}
	}
	next := func(rep engine.Report) engine.Report {
		select {
		case reports <- rep:
		case <-ctx.Done():
			t.Fatal("the run took no report")
		}
		select {
		case u := <-p.out:
			return u.Report
		case <-ctx.Done():
			t.Fatal("the run passed no report on")
		}
		return engine.Report{}
	}
	if got := next(passed(1)); len(got.Problems) != 1 {
		t.Fatalf("after a failed save, problems %q; want the save's", got.Problems)
	}
	if err := os.Remove(store.Path); err != nil {
		t.Fatal(err)
	}
	if got := next(passed(2)); len(got.Problems) != 0 {
		t.Errorf("after a save that succeeded, problems %q; want none", got.Problems)
	}
	if f, err := store.Load(); err != nil || len(f.Progress.PassedAt) != 1 {
		t.Errorf("progress after the second save: %+v, %v", f.Progress, err)
	}
}

// Played ends a replay run once its trace has played out, and says so;
// when ctx ends first, it says that instead.
func TestPlayedEndsWithTheTrace(t *testing.T) {
	kit := labkittest.Installed(t)[0]
	tr, err := trace.ReferenceOf(kit.Text)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := Replay(kit.Text, kit.Steps, tr, trace.ReplayOptions{Speed: trace.Instant})
	st := r.Start(ctx)
	defer r.Stop()
	if _, ok := r.Played(ctx, st, func(Update) {}); !ok || !r.Trace().Progress().Done {
		t.Fatalf("Played: ok %v, trace done %v (ctx: %v)", ok, r.Trace().Progress().Done, ctx.Err())
	}

	// At the recorded pace the trace is far from played when ctx ends.
	slow := Replay(kit.Text, kit.Steps, tr, trace.ReplayOptions{Speed: 1})
	sctx, scancel := context.WithCancel(context.Background())
	sst := slow.Start(sctx)
	defer slow.Stop()
	scancel()
	if _, ok := slow.Played(sctx, sst, func(Update) {}); ok {
		t.Error("Played said the trace played out after ctx ended")
	}
}

// The run's notices (its caller's, then Notice's) come first among the
// problems of its first answer, for every command that asks for one.
func TestFirstAnswerSaysTheRunsNotices(t *testing.T) {
	lab, steps := echoLab(t)
	r, err := New(Options{Lab: lab, Steps: steps, Root: t.TempDir(), Cluster: kube.Target{Off: true}, Notices: []string{"상태 파일 경고"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Notice("교실 파일 경고")
	rep := r.Once(context.Background(), 30*time.Second)
	if len(rep.Problems) < 2 || rep.Problems[0] != "상태 파일 경고" || rep.Problems[1] != "교실 파일 경고" {
		t.Fatalf("problems %q, want the run's notices first", rep.Problems)
	}
	if w := r.Warnings(); len(w) < 2 || w[1] != "교실 파일 경고" {
		t.Errorf("warnings %q", w)
	}
}
