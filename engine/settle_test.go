package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// step builds a StepResult from check statuses (IDs c0, c1, ...).
func step(n int, sts ...checks.Status) StepResult {
	sr := StepResult{Number: n}
	for i, st := range sts {
		sr.Checks = append(sr.Checks, checks.Result{ID: "c" + string(rune('0'+i)), Status: st})
	}
	sr.Status = checks.Aggregate(sr.Checks)
	return sr
}

func report(ready bool, steps ...StepResult) Report { return Report{Ready: ready, Steps: steps} }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

// Two steps: 1 reads a, 2 reads b (and is decided after 1).
func gate(published Report) *settleGate {
	g := newSettleGate(40*time.Millisecond, 250*time.Millisecond, map[int][]string{1: {"a"}, 2: {"b"}})
	g.shown(published)
	return g
}

func TestGateShowsBetterAtOnce(t *testing.T) {
	g := gate(report(true, step(1, checks.Failed), step(2, checks.Waiting)))
	g.fileChanged("a", ms(0))
	got, wake := g.view(report(true, step(1, checks.Passed), step(2, checks.Failed)), ms(0))
	// Step 2 went from waiting to failed while a (read by step 1, before
	// it) is changing: held. Step 1 got better: shown.
	if got.Step(1).Status != checks.Passed || got.Step(2).Status != checks.Waiting {
		t.Fatalf("got %s/%s, want passed/waiting", got.Step(1).Status, got.Step(2).Status)
	}
	if wake != ms(40) {
		t.Fatalf("wake = %v, want +40ms", wake.Sub(t0))
	}
}

func TestGateHoldsWorseUntilQuiet(t *testing.T) {
	pub := report(true, step(1, checks.Passed), step(2, checks.Passed))
	g := gate(pub)
	g.fileChanged("a", ms(0))
	bad := report(true, step(1, checks.Failed), step(2, checks.Passed))
	got, wake := g.view(bad, ms(1))
	if got.Step(1).Status != checks.Passed || wake != ms(40) {
		t.Fatalf("worse result not held: %s, wake %v", got.Step(1).Status, wake.Sub(t0))
	}
	// Another event on a pushes the window on.
	g.fileChanged("a", ms(20))
	if got, wake = g.view(bad, ms(20)); got.Step(1).Status != checks.Passed || wake != ms(60) {
		t.Fatalf("after a second event: %s, wake %v", got.Step(1).Status, wake.Sub(t0))
	}
	// An evaluation for another reason (a cluster event) while a is still
	// changing does not leak the held result.
	if got, _ = g.view(bad, ms(59)); got.Step(1).Status != checks.Passed {
		t.Fatal("held result leaked before the file was quiet")
	}
	if got, wake = g.view(bad, ms(60)); got.Step(1).Status != checks.Failed || !wake.IsZero() {
		t.Fatalf("quiet file: %s, wake %v; want failed, no wake", got.Step(1).Status, wake)
	}
}

func TestGateWorseIsPerCheck(t *testing.T) {
	g := gate(report(true, step(1, checks.Failed, checks.Passed), step(2, checks.Waiting)))
	g.fileChanged("a", ms(0))
	// One check fixed, the other broken: the step is failed either way,
	// but it is not progress and not shown until quiet.
	now := report(true, step(1, checks.Passed, checks.Failed), step(2, checks.Waiting))
	got, _ := g.view(now, ms(0))
	if got.Step(1).Checks[0].Status != checks.Failed {
		t.Fatalf("mixed change shown at once: %+v", got.Step(1).Checks)
	}
	// A new failing check on a passed step is worse too.
	g = gate(report(true, step(1, checks.Passed), step(2, checks.Waiting)))
	g.fileChanged("a", ms(0))
	got, _ = g.view(report(true, step(1, checks.Passed, checks.Error), step(2, checks.Waiting)), ms(0))
	if len(got.Steps[0].Checks) != 1 {
		t.Fatalf("new failing check shown at once: %+v", got.Step(1).Checks)
	}
}

func TestGateOnlyHoldsStepsReadingTheChangingFile(t *testing.T) {
	g := gate(report(true, step(1, checks.Passed), step(2, checks.Passed)))
	g.fileChanged("b", ms(0))
	// Step 1 reads only a: a cluster or script result that made it worse
	// is shown at once; step 2, reading b, is held.
	got, _ := g.view(report(true, step(1, checks.Unknown), step(2, checks.Failed)), ms(1))
	if got.Step(1).Status != checks.Unknown || got.Step(2).Status != checks.Passed {
		t.Fatalf("got %s/%s, want unknown/passed", got.Step(1).Status, got.Step(2).Status)
	}
}

func TestGateCapsTheHoldUnderConstantChange(t *testing.T) {
	g := gate(report(true, step(1, checks.Passed), step(2, checks.Passed)))
	bad := report(true, step(1, checks.Failed), step(2, checks.Passed))
	var got Report
	for at := 0; at < 250; at += 30 {
		g.fileChanged("a", ms(at))
		if got, _ = g.view(bad, ms(at)); got.Step(1).Status != checks.Passed {
			t.Fatalf("shown at %d ms", at)
		}
	}
	if got, _ = g.view(bad, ms(250)); got.Step(1).Status != checks.Failed {
		t.Fatal("held past the cap")
	}
}

// A burst that went quiet with nothing held is over even if no
// evaluation noticed: the next save starts a new window, not one capped
// by the old burst's start.
func TestGateStartsANewBurstAfterQuiet(t *testing.T) {
	g := gate(report(true, step(1, checks.Passed), step(2, checks.Passed)))
	g.fileChanged("a", ms(0))
	g.fileChanged("a", ms(300))
	got, wake := g.view(report(true, step(1, checks.Failed), step(2, checks.Passed)), ms(301))
	if got.Step(1).Status != checks.Passed || wake != ms(340) {
		t.Fatalf("got %s, wake %v; want held until +340ms", got.Step(1).Status, wake.Sub(t0))
	}
}

func TestGateHoldsNothingBeforeReady(t *testing.T) {
	g := gate(report(false, step(1, checks.Passed), step(2, checks.Passed)))
	g.fileChanged("a", ms(0))
	if got, wake := g.view(report(true, step(1, checks.Failed), step(2, checks.Passed)), ms(0)); got.Step(1).Status != checks.Failed || !wake.IsZero() {
		t.Fatal("the first ready report must be exact")
	}
}

// fakeClock drives the engine loop's settle timer by hand.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	c     chan time.Time
	due   time.Time
	armed chan struct{}
}

// waitArmed waits until the loop armed its settle timer.
func (f *fakeClock) waitArmed(t *testing.T) {
	t.Helper()
	select {
	case <-f.armed:
	case <-time.After(30 * time.Second):
		t.Fatal("the engine armed no settle timer in 30 s: nothing was held")
	}
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0, armed: make(chan struct{}, 16)} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) After(d time.Duration) (<-chan time.Time, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := make(chan time.Time, 1)
	f.c, f.due = c, f.now.Add(d)
	if d <= 0 {
		// Due already, as time.After(0) is: an evaluation that began
		// before fire moved the time on arms its timer after it.
		c <- f.now
	}
	f.armed <- struct{}{}
	return c, func() {}
}

// fire moves time to the armed timer's due time and fires it.
func (f *fakeClock) fire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.due
	f.c <- f.now
}

// The loop with a fake clock: a partial write is held, the right content
// shows at once, and a wrong file shows red only when the timer fires.
// One step, so every report the loop sends is about the file held.
func TestRunHoldsARedUntilTheSettleTimerFires(t *testing.T) {
	lab, steps := testLab()
	lab.Steps, steps = lab.Steps[:1], steps[:1]
	e := New(Config{Lab: lab, Steps: steps})
	src := &chanSource{name: "s", obs: make(chan observe.Observation)}
	clk := newFakeClock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan Report, 1)
	done := make(chan struct{})
	go func() { defer close(done); e.run(ctx, []observe.Source{src}, out, clk) }()
	defer func() { cancel(); <-done }()

	next(t, out)
	src.obs <- observe.Observation{Synced: &observe.SyncedObs{Source: "s"}}
	next(t, out)
	src.obs <- fileObs("a", "ok")
	if r := next(t, out); r.Step(1).Status != checks.Passed {
		t.Fatalf("right file not shown at once: %s", r.Step(1).Status)
	}

	// Half of a rewrite: worse, held; a timer is armed.
	src.obs <- fileObs("a", "o")
	clk.waitArmed(t)
	// An unrelated observation is handled after that evaluation finished:
	// had it published, the report would be waiting now.
	src.obs <- fileObs("unrelated", "x")
	clk.waitArmed(t)
	select {
	case r := <-out:
		t.Fatalf("partial write published: step 1 %s", r.Step(1).Status)
	default:
	}
	// The rest of the write: equal to what is shown, nothing to publish
	// and nothing held, so no timer; then a wrong file, held. The timer
	// armed next is the wrong file's, taken alone or with the right one.
	src.obs <- fileObs("a", "ok")
	src.obs <- fileObs("a", "no")
	clk.waitArmed(t)
	select {
	case r := <-out:
		t.Fatalf("wrong file published before quiet: step 1 %s", r.Step(1).Status)
	default:
	}
	clk.fire()
	if r := next(t, out); r.Step(1).Status != checks.Failed {
		t.Fatalf("after the settle window step 1 = %s, want failed", r.Step(1).Status)
	}
}
