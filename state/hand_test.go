package state

import (
	"testing"
	"time"
)

// The file keeps the newest hand act, whichever terminal wrote it: an
// older act written late (a labmate that acted before another terminal
// did, writing after it) is refused, and other progress is kept beside it.
func TestStoreKeepsTheNewestHandAct(t *testing.T) {
	s, err := Open(t.TempDir(), "lab", "/x")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.FixedZone("KST", 9*3600))
	if err := s.Record(Event{Kind: CaughtUp, Step: 2, At: t0}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		act  HandAct
		kept bool
	}{
		{HandAct{Up: true, Step: 3, Note: "도와주세요", At: t0.Add(time.Minute)}, true},
		{HandAct{Up: false, At: t0.Add(30 * time.Second)}, false}, // older: another terminal acted since
		{HandAct{Up: false, At: t0.Add(time.Minute)}, false},      // as old: not newer
		{HandAct{Up: false}, false},                               // no time: nothing to order it by
		{HandAct{Up: false, At: t0.Add(2 * time.Minute)}, true},
	}
	for i, st := range steps {
		kept, err := s.RecordHand(st.act)
		if err != nil || kept != st.kept {
			t.Errorf("act %d %+v: kept %v (%v), want %v", i, st.act, kept, err, st.kept)
		}
	}
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	h := f.Progress.Hand
	if h == nil || h.Up || !h.At.Equal(t0.Add(2*time.Minute)) || h.At.Location() != time.UTC {
		t.Errorf("hand in the file %+v, want the lowering at %v, in UTC", h, t0.Add(2*time.Minute))
	}
	if !f.Progress.IsCaughtUp(2) {
		t.Error("recording a hand lost the caught-up step")
	}

	// Merge takes the newer hand act of another copy, not an older one.
	p := Progress{Hand: &HandAct{Up: true, At: t0}}
	if !p.Merge(Progress{Hand: &HandAct{At: t0.Add(time.Second)}}) || p.Hand.Up {
		t.Errorf("merge of a newer lowering: %+v", p.Hand)
	}
	if p.Merge(Progress{Hand: &HandAct{Up: true, At: t0}}) || p.Hand.Up {
		t.Errorf("merge of an older raising changed the hand: %+v", p.Hand)
	}
}
