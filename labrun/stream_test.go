package labrun

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
)

func report(ready bool, statuses ...checks.Status) engine.Report {
	rep := engine.Report{Ready: ready}
	for i, s := range statuses {
		rep.Steps = append(rep.Steps, engine.StepResult{Number: i + 1, Status: s})
	}
	return rep
}

func TestNextNamesEachChange(t *testing.T) {
	first := report(false, checks.Waiting, checks.Waiting)
	u := Next(nil, first)
	if len(u.Changes) != 0 || u.SinceReady {
		t.Fatalf("the first update has changes %v (since ready %v)", u.Changes, u.SinceReady)
	}
	ready := report(true, checks.Passed, checks.Failed)
	u = Next(&first, ready)
	if u.SinceReady || len(u.Changes) != 2 {
		t.Fatalf("after a report not ready: %+v", u)
	}
	later := report(true, checks.Failed, checks.Passed)
	u = Next(&ready, later)
	if !u.SinceReady || len(u.Changes) != 2 {
		t.Fatalf("changes %+v", u.Changes)
	}
	if c := u.Changes[0]; c.Step != 1 || !c.Regressed() || c.Passed() {
		t.Errorf("step 1 passed → failed: %+v", c)
	}
	if c := u.Changes[1]; c.Step != 2 || !c.Passed() || c.Regressed() {
		t.Errorf("step 2 failed → passed: %+v", c)
	}
	if !u.Has(2) || u.Has(3) {
		t.Error("Has does not follow Changes")
	}
	waiting := report(true, checks.Waiting, checks.Passed)
	if c := Next(&later, waiting).Changes[0]; c.Regressed() || c.Passed() {
		t.Errorf("failed → waiting is neither a pass nor a regression: %+v", c)
	}
	if c := Next(&ready, report(true, checks.Unknown, checks.Failed)).Changes[0]; c.Regressed() {
		t.Errorf("a lost cluster (passed → unknown) is not a regression: %+v", c)
	}
}

// A reader that misses updates gets the changes it missed folded into the
// one it reads: nothing a step did is lost, and nothing is counted twice.
func TestStreamFoldsMissedChanges(t *testing.T) {
	ctx := context.Background()
	st := &Stream{ch: make(chan Update, 1)}
	p := &pump{out: st.ch}
	r0 := report(true, checks.Failed, checks.Failed, checks.Failed)
	p.send(ctx, r0, nil)
	st.Take(<-st.ch)
	p.send(ctx, report(true, checks.Passed, checks.Failed, checks.Failed), []int{1}) // never read
	p.send(ctx, report(true, checks.Passed, checks.Passed, checks.Failed), []int{2})
	u := st.Take(<-st.ch)
	if len(u.Changes) != 2 || !u.Changes[0].Passed() || !u.Changes[1].Passed() {
		t.Fatalf("changes %+v: want steps 1 and 2 passed since the last read", u.Changes)
	}
	if !slices.Equal(u.FirstPassed, []int{1, 2}) {
		t.Fatalf("first passes %v: want the missed one's and this one's, [1 2]", u.FirstPassed)
	}
	p.send(ctx, report(true, checks.Passed, checks.Passed, checks.Passed), []int{3})
	u = st.Take(<-st.ch)
	if len(u.Changes) != 1 || u.Changes[0].Step != 3 {
		t.Fatalf("changes %+v: want step 3 only", u.Changes)
	}
	// A step that went and came back while unread is no change.
	p.send(ctx, report(true, checks.Failed, checks.Passed, checks.Passed), nil)
	p.send(ctx, report(true, checks.Passed, checks.Passed, checks.Passed), nil)
	if u = st.Take(<-st.ch); len(u.Changes) != 0 {
		t.Fatalf("changes %+v: the reader saw no difference", u.Changes)
	}
}

// Until asks its condition only once the updates have gone quiet, so a
// report from before the caller's action does not answer it.
func TestUntilWaitsForQuiet(t *testing.T) {
	ctx := context.Background()
	st := &Stream{ch: make(chan Update, 1)}
	p := &pump{out: st.ch}
	p.send(ctx, report(true, checks.Passed), nil)
	go func() {
		time.Sleep(20 * time.Millisecond)
		p.send(ctx, report(true, checks.Failed), nil)
	}()
	rep, ok := st.Until(ctx, 30*time.Second, 100*time.Millisecond, func(r engine.Report) bool { return r.Step(1).Status == checks.Failed })
	if !ok || rep.Step(1).Status != checks.Failed {
		t.Fatalf("Until returned %v %v", rep.Step(1).Status, ok)
	}
	start := time.Now()
	_, ok = st.Until(ctx, 150*time.Millisecond, 20*time.Millisecond, func(r engine.Report) bool { return r.Step(1).Status == checks.Passed })
	if ok || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("Until met a condition nothing made true (ok %v after %v)", ok, time.Since(start))
	}
}

// First answers with the first ready report; after its timeout, with the
// newest one as it is and a problem saying so, or, when none came yet,
// with the first that comes; when ctx ends, with what it has.
func TestFirstWaitsForReadyThenForTimeout(t *testing.T) {
	ctx := context.Background()
	fed := func(reps ...engine.Report) *Stream {
		st := &Stream{ch: make(chan Update, len(reps))}
		var prev *engine.Report
		for _, r := range reps {
			st.ch <- Next(prev, r)
			prev = &r
		}
		return st
	}
	rep, ok := fed(report(false, checks.Waiting), report(true, checks.Passed)).First(ctx, time.Minute)
	if !ok || !rep.Ready || rep.Steps[0].Status != checks.Passed || len(rep.Problems) != 0 {
		t.Errorf("a ready report: %+v, %v", rep, ok)
	}

	rep, ok = fed(report(false, checks.Waiting)).First(ctx, 50*time.Millisecond)
	if ok || rep.Ready || len(rep.Steps) != 1 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "첫 상태") {
		t.Errorf("not ready by the timeout: %+v, %v", rep, ok)
	}

	// Nothing by the timeout: the first report to come goes out.
	st := &Stream{ch: make(chan Update, 1)}
	go func() {
		time.Sleep(100 * time.Millisecond) // most likely past the timeout; before it, the answer is the same
		st.ch <- Next(nil, report(false, checks.Failed))
	}()
	rep, ok = st.First(ctx, 10*time.Millisecond)
	if ok || len(rep.Steps) != 1 || rep.Steps[0].Status != checks.Failed || len(rep.Problems) != 1 {
		t.Errorf("a late first report: %+v, %v", rep, ok)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	rep, ok = (&Stream{ch: make(chan Update)}).First(cctx, time.Minute)
	if ok || len(rep.Problems) != 1 {
		t.Errorf("ctx ended: %+v, %v", rep, ok)
	}
}
