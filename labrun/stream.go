package labrun

import (
	"context"
	"slices"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/latest"
)

// Change is one step whose status changed between two reports.
type Change struct {
	Step int
	From checks.Status
	To   checks.Status
	// Pos, Line and At place the change in a trace evaluated exactly
	// (Exact): the number of records applied when it changed (1 = after
	// the first), the record's line and its recorded time. Zero in a
	// live stream.
	Pos  int
	Line int
	At   time.Duration
}

// Passed says the step turned passed.
func (c Change) Passed() bool { return c.From != checks.Passed && c.To == checks.Passed }

// Regressed says a passed step turned red: failed or an error, not a
// wait or a lost cluster.
func (c Change) Regressed() bool {
	return c.From == checks.Passed && (c.To == checks.Failed || c.To == checks.Error)
}

// changes are the steps whose status differs from before to after, in
// step order. A step before lacks counts as changed from "" (no status).
// This is the one place labmate compares two reports' step statuses.
func changes(before, after *engine.Report) []Change {
	var out []Change
	for _, st := range after.Steps {
		var from checks.Status
		if before != nil {
			if b := before.Step(st.Number); b != nil {
				from = b.Status
			} else {
				continue
			}
		}
		if from != st.Status {
			out = append(out, Change{Step: st.Number, From: from, To: st.Status})
		}
	}
	return out
}

// Update is one report of a run, with the steps whose status changed
// since the report its reader got before.
type Update struct {
	engine.Report
	// Changes are measured from the previous update the reader got (none
	// for the first one).
	Changes []Change
	// SinceReady says that previous update was taken after every source
	// had delivered its initial state: only then is a change something
	// the learner did, not start-up catching up with earlier work.
	SinceReady bool
	// FirstPassed are the steps that first passed with this update, by
	// the one rule (Passes) and the run's memory of earlier passes (a
	// live run's begins with the learner's progress): the class's first
	// pass times come from here. Current() is the learner's step.
	FirstPassed []int
	before      *engine.Report
}

// Next is the update that follows prev (nil: the first) with rep. The
// run's stream makes every update with it; a reader that is handed
// reports by something else (a test, a demo) makes its own the same way.
func Next(prev *engine.Report, rep engine.Report) Update {
	u := Update{Report: rep, before: prev}
	if prev != nil {
		u.Changes = changes(prev, &rep)
		u.SinceReady = prev.Ready
	}
	return u
}

// Has reports whether the update changed step n.
func (u Update) Has(n int) bool {
	for _, c := range u.Changes {
		if c.Step == n {
			return true
		}
	}
	return false
}

// Stream is the reader's side of a run: updates in order, only the newest
// kept when the reader is slow, and the changes it missed folded into the
// one it gets.
type Stream struct {
	ch   chan Update
	last engine.Report
	got  bool
	// notices are the run's (Run.Warnings at Start), said first among
	// the problems of First's answer.
	notices []string
}

// Updates is the channel the updates arrive on, for a select loop.
func (s *Stream) Updates() <-chan Update { return s.ch }

// Take records u as read when it came from Updates directly (Until and
// Once do it themselves), so Last stays right.
func (s *Stream) Take(u Update) Update {
	s.last, s.got = u.Report, true
	return u
}

// Last is the newest report read from the stream (zero before the first).
func (s *Stream) Last() engine.Report { return s.last }

// First is the one wait for a run's first answer (check, check --watch,
// report, class preview): it reads updates until one is ready (every
// source delivered its initial state) and returns it with true. Once
// timeout passes, the newest report read goes out as it is, a problem
// saying it is not ready among its problems, with false; before any
// report arrived, the first one to arrive does. When ctx ends first, the
// newest report (zero before any), marked the same way. The run's
// notices come first among the answer's problems.
func (s *Stream) First(ctx context.Context, timeout time.Duration) (engine.Report, bool) {
	rep, ok := s.first(ctx, timeout)
	if len(s.notices) > 0 {
		rep.Problems = append(slices.Clone(s.notices), rep.Problems...)
	}
	return rep, ok
}

func (s *Stream) first(ctx context.Context, timeout time.Duration) (engine.Report, bool) {
	late := time.NewTimer(timeout)
	defer late.Stop()
	notReady := func() engine.Report {
		rep := s.last
		rep.Problems = append(slices.Clip(rep.Problems), content.Msg("engine.not_ready", "timeout", timeout))
		return rep
	}
	timedOut := false
	for {
		select {
		case u := <-s.ch:
			s.Take(u)
			if u.Ready {
				return u.Report, true
			}
			if timedOut {
				return notReady(), false
			}
		case <-late.C:
			if s.got {
				return notReady(), false
			}
			timedOut = true
		case <-ctx.Done():
			return notReady(), false
		}
	}
}

// Until reads updates until one meets cond, at most timeout. It first
// lets what the caller's last action caused arrive: only once no update
// came for quiet is cond asked, so an older report that happens to meet
// it does not count. It returns the newest report either way.
func (s *Stream) Until(ctx context.Context, timeout, quiet time.Duration, cond func(engine.Report) bool) (engine.Report, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	hush := time.NewTimer(quiet)
	defer hush.Stop()
	settled := false
	for {
		if settled && s.got && cond(s.last) {
			return s.last, true
		}
		select {
		case <-ctx.Done():
			return s.last, false
		case <-deadline.C:
			return s.last, s.got && cond(s.last)
		case <-hush.C:
			settled = true
		case u := <-s.ch:
			s.Take(u)
			if !settled {
				hush.Reset(quiet)
			}
		}
	}
}

// pump hands the engine's reports to the stream, each as an Update whose
// changes are measured from the last one the reader took: when the
// reader missed one, its base carries over.
type pump struct {
	out  chan Update
	sent *engine.Report
}

func (p *pump) send(ctx context.Context, rep engine.Report, first []int) {
	u := Next(p.sent, rep)
	u.FirstPassed = first
	latest.Merge(ctx, p.out, u, func(unread Update) Update {
		m := Next(unread.before, rep)
		m.FirstPassed = append(slices.Clip(unread.FirstPassed), first...)
		return m
	})
	p.sent = &rep
}
