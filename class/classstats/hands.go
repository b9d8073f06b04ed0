package classstats

import (
	"cmp"
	"slices"
	"time"

	"github.com/labhub/labmate/class"
)

// Hand is a learner's raised hand with what the instructor needs to walk
// over: the step, how long the hand and the learner's time on the step
// have lasted, the learner's note and failing checks with their
// messages, the hint rung, and whether the instructor acknowledged it.
type Hand struct {
	Learner, Name, Lab string
	class.Hand
	// Up is how long the hand has been up; OnStep how long the learner
	// has been on the step.
	Up, OnStep time.Duration
	// Acked says the learner's labmate saw the instructor's
	// acknowledgement of this hand.
	Acked bool
}

// Hands are the raised hands of the believed records: those not yet
// acknowledged first, then the longest up first.
func Hands(recs []class.Record, now time.Time) []Hand {
	var out []Hand
	for _, r := range recs {
		if r.Flag != "" || r.Hand == nil {
			continue
		}
		h := Hand{Learner: r.Learner, Name: r.Name, Lab: r.Lab, Hand: *r.Hand, Up: max(0, now.Sub(r.Hand.Raised)),
			Acked: !r.Hand.Acked.IsZero()}
		if r.Current == r.Hand.Step && !r.CurrentSince.IsZero() {
			h.OnStep = max(0, now.Sub(r.CurrentSince))
		}
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b Hand) int {
		if a.Acked != b.Acked {
			if a.Acked {
				return 1
			}
			return -1
		}
		if c := a.Raised.Compare(b.Raised); c != 0 {
			return c
		}
		return cmp.Compare(a.Learner, b.Learner)
	})
	return out
}

// countStep adds what a step record says of hands, catch-up and named
// mistakes to the step's counts (Summarize).
func (st *Step) countStep(s class.StepRecord, current bool, mistakes map[string]int) {
	if s.CaughtUp {
		st.CaughtUp++
	}
	st.Hands += s.Hands
	for _, sec := range s.AckSeconds {
		st.AckTimes = append(st.AckTimes, time.Duration(sec)*time.Second)
	}
	if current && s.Mistake != "" {
		mistakes[s.Mistake]++
	}
}
