package learner

import (
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/state"
)

// A raised hand carries the step, its failing checks with their messages
// (the learner chose to show them), the hint rung and the note, cleaned;
// the instructor's acknowledgement of it is kept with the seconds it
// took; it lowers itself when the step passes, and the learner lowers it.
func TestHandUpAcknowledgedAndDown(t *testing.T) {
	f := &feed{}
	c := &stepClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	tr := NewTracker(class.Identity{Learner: "learner-01", Lab: "gpu-incident"}, c.now)
	tr.Apply(Update{Report: f.report(checks.Passed, checks.Failed, checks.Waiting)})
	tr.Apply(Update{Hints: &Hints{Step: 2, Seen: 2}})

	c.t = c.t.Add(4 * time.Minute)
	if !tr.Apply(Update{Hand: &Hand{Up: true, Note: "도와주세요\x1b]2;pwn\x07\n이 줄이 안 돼요"}}) {
		t.Fatal("raising a hand changed nothing a teacher cares about")
	}
	h := tr.Record().Hand
	if h == nil || h.Step != 2 || h.Hints != 2 || !h.Raised.Equal(c.t) {
		t.Fatalf("hand %+v, want step 2 at rung 2 raised now", h)
	}
	if strings.ContainsAny(h.Note, "\x1b\x07\n") || !strings.Contains(h.Note, "도와주세요") || !strings.Contains(h.Note, "이 줄이 안 돼요") {
		t.Errorf("note %q: control characters must go, the words stay", h.Note)
	}
	if len(h.Checks) != 1 || h.Checks[0].ID != "bad-check" || !strings.Contains(h.Checks[0].Message, secretExcerpt) {
		t.Errorf("hand checks %+v, want the failing check with its message", h.Checks)
	}

	// Someone else's acknowledgement (another hand) changes nothing.
	tr.Apply(Update{Ack: &class.Ack{Step: 2, Raised: c.t.Add(-time.Hour), At: c.t}})
	if !tr.Record().Hand.Acked.IsZero() {
		t.Fatal("an acknowledgement of another hand was taken for this one")
	}
	c.t = c.t.Add(90 * time.Second)
	tr.Apply(Update{Ack: &class.Ack{Step: 2, Raised: h.Raised, At: c.t}})
	r := tr.Record()
	if r.Hand == nil || !r.Hand.Acked.Equal(c.t) {
		t.Fatalf("hand after its acknowledgement: %+v", r.Hand)
	}
	if s := r.Step(2); s.Hands != 1 || len(s.AckSeconds) != 1 || s.AckSeconds[0] != 90 {
		t.Errorf("step 2 hands %d, ack seconds %v; want 1 and [90]", s.Hands, s.AckSeconds)
	}

	// The step passes: the hand goes down by itself; the counts stay.
	tr.Apply(Update{Report: f.report(checks.Passed, checks.Passed, checks.Failed)})
	r = tr.Record()
	if r.Hand != nil {
		t.Errorf("hand still up after its step passed: %+v", r.Hand)
	}
	if s := r.Step(2); s.Hands != 1 || len(s.AckSeconds) != 1 {
		t.Errorf("step 2 lost its hand counts: %+v", s)
	}

	// Up on step 3, then lowered by the learner.
	tr.Apply(Update{Hand: &Hand{Up: true}})
	if h := tr.Record().Hand; h == nil || h.Step != 3 || h.Note != "" {
		t.Fatalf("hand on step 3: %+v", h)
	}
	tr.Apply(Update{Hand: &Hand{}})
	if h := tr.Record().Hand; h != nil {
		t.Errorf("lowered hand still up: %+v", h)
	}

	// Nothing to raise a hand on when every step passed.
	tr.Apply(Update{Report: f.report(checks.Passed, checks.Passed, checks.Passed)})
	tr.Apply(Update{Hand: &Hand{Up: true}})
	if h := tr.Record().Hand; h != nil {
		t.Errorf("hand raised with every step passed: %+v", h)
	}
}

// A failing check that matches a named wrong answer names the mistake
// on its step; a step caught up (state) is marked caught up while it
// passes.
func TestTrackerNamesMistakesAndCaughtUpSteps(t *testing.T) {
	f := &feed{}
	tr := NewTracker(class.Identity{Learner: "learner-01", Lab: "gpu-incident"}, nil)
	tr.NameMistakes(func(step int, check, message string) string {
		if step == 2 && check == "bad-check" && strings.Contains(message, "my-secret-value") {
			return "따옴표\x1b[31m 없는 이름"
		}
		return ""
	})
	Seed(tr.Apply, state.Progress{CaughtUpAt: map[int]time.Time{1: time.Now()}}, false)
	tr.Apply(Update{Report: f.report(checks.Passed, checks.Failed)})
	r := tr.Record()
	if s := r.Step(2); s.Mistake != "따옴표 [31m 없는 이름" {
		t.Errorf("step 2 mistake %q", s.Mistake)
	}
	if !r.Step(1).CaughtUp || r.Step(2).CaughtUp {
		t.Errorf("caught up: step 1 %v, step 2 %v; want true, false", r.Step(1).CaughtUp, r.Step(2).CaughtUp)
	}
	raw, err := class.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := class.Unmarshal(raw); err != nil {
		t.Fatal(err)
	}
}
