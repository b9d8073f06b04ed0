package classstats

import (
	"testing"
	"time"

	"github.com/labhub/labmate/class"
)

// Hands: the raised hands of believed records, those not yet
// acknowledged first, then the longest up; a flagged record's hand is
// not believed.
func TestHands(t *testing.T) {
	recs := []class.Record{
		learner("a", 2, []float64{3}, "crd"),
		learner("b", 2, []float64{5}, "runtime"),
		learner("c", 3, []float64{1, 1}, "gpu"),
		learner("d", 2, []float64{1}, "gpu"),
	}
	recs[0].Hand = &class.Hand{Step: 2, Raised: t0.Add(10 * time.Minute), Acked: t0.Add(11 * time.Minute)}
	recs[1].Hand = &class.Hand{Step: 2, Raised: t0.Add(12 * time.Minute), Note: "help"}
	recs[2].Hand = &class.Hand{Step: 3, Raised: t0.Add(9 * time.Minute)}
	recs[3].Hand, recs[3].Flag = &class.Hand{Step: 2, Raised: t0}, class.Forged
	now := t0.Add(20 * time.Minute)
	got := Hands(recs, now)
	if len(got) != 3 {
		t.Fatalf("%d hands, want 3: %+v", len(got), got)
	}
	for i, want := range []struct {
		learner string
		acked   bool
		up      time.Duration
	}{{"c", false, 11 * time.Minute}, {"b", false, 8 * time.Minute}, {"a", true, 10 * time.Minute}} {
		if h := got[i]; h.Learner != want.learner || h.Acked != want.acked || h.Up != want.up {
			t.Errorf("hand %d: %s acked %v up %v, want %s %v %v", i, h.Learner, h.Acked, h.Up, want.learner, want.acked, want.up)
		}
	}
	if got[1].Note != "help" || got[1].OnStep != 15*time.Minute {
		t.Errorf("b's hand: note %q on step %v", got[1].Note, got[1].OnStep)
	}
}

// Summarize counts per step the learners who caught it up, the hands
// raised there with their times to an acknowledgement, and the named
// mistakes of the learners on it, most learners first.
func TestSummarizeCountsTheRoom(t *testing.T) {
	recs := []class.Record{
		learner("a", 2, []float64{3}, "crd"),
		learner("b", 2, []float64{5}, "runtime"),
		learner("c", 2, []float64{1}, "gpu"),
		learner("d", 3, []float64{1, 1}, "gpu"),
	}
	for i, label := range []string{"따옴표", "따옴표", "경로"} {
		recs[i].Step(2).Mistake = label
	}
	recs[3].Step(2).Mistake = "지나간 실수" // step 2 passed: no longer its mistake
	recs[3].Step(1).CaughtUp, recs[3].Step(2).CaughtUp = true, true
	recs[0].Step(2).Hands, recs[0].Step(2).AckSeconds = 2, []int{95, 40}
	s := Summarize(recs, 3)
	st := s.Steps[1]
	if len(st.Mistakes) != 2 || st.Mistakes[0] != (CheckCount{ID: "따옴표", N: 2}) || st.Mistakes[1] != (CheckCount{ID: "경로", N: 1}) {
		t.Errorf("step 2 mistakes %+v", st.Mistakes)
	}
	if s.Steps[0].CaughtUp != 1 || st.CaughtUp != 1 || s.Steps[2].CaughtUp != 0 {
		t.Errorf("caught up per step: %d %d %d", s.Steps[0].CaughtUp, st.CaughtUp, s.Steps[2].CaughtUp)
	}
	if st.Hands != 2 || len(st.AckTimes) != 2 || st.AckTimes[0] != 40*time.Second {
		t.Errorf("step 2 hands %d, ack times %v", st.Hands, st.AckTimes)
	}
}
