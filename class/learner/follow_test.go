package learner

import (
	"context"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube/kubefake"
	"github.com/labhub/labmate/state"
)

// A running labmate follows the learner's progress file: steps `labmate
// catch-up` records in another terminal are published caught up, a
// hand raised or lowered there (class hand) is taken, the run's own
// hand acts are written there, and an act older than the newest the
// run took (another terminal's, written late) changes nothing: neither
// side overwrites the other's newer hand.
func TestPublisherFollowsTheProgressFile(t *testing.T) {
	store, err := state.Open(t.TempDir(), "gpu-incident", "/root/lab")
	if err != nil {
		t.Fatal(err)
	}
	pub := NewPublisher(PublisherConfig{Client: kubefake.New(recordObject("learner-01", "gpu-incident")), Namespace: testNS,
		Identity: class.Identity{Learner: "learner-01", Lab: "gpu-incident"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	acts := make(chan state.HandAct, 1)
	pub.handActs = acts
	done := make(chan struct{})
	go func() { defer close(done); follow(ctx, store, pub, acts) }()
	defer func() { cancel(); <-done }()

	f := &feed{}
	pub.Publish(Update{Report: f.report(checks.Failed, checks.Failed, checks.Failed)})

	// Another terminal catches up steps 1 and 2; the run then sees them pass.
	if err := store.Record(state.Event{Kind: state.CaughtUp, Step: 1}, state.Event{Kind: state.CaughtUp, Step: 2}); err != nil {
		t.Fatal(err)
	}
	pub.Publish(Update{Report: f.report(checks.Passed, checks.Passed, checks.Failed)})
	waitFor(t, "steps 1 and 2 published caught up", func() bool {
		r := pub.Record()
		return r.Step(1).CaughtUp && r.Step(2).CaughtUp && !r.Step(3).CaughtUp
	})

	// Another terminal raises the hand (class hand): taken as it is named.
	raised := time.Now().Add(-time.Minute)
	if _, err := store.RecordHand(state.HandAct{Up: true, Step: 3, Note: "셸에서", At: raised}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hand from the other terminal", func() bool {
		h := pub.Hand()
		return h != nil && h.Step == 3 && h.Note == "셸에서" && h.Raised.Equal(raised.UTC().Truncate(time.Second))
	})

	// This run lowers it: the act reaches the file.
	pub.LowerHand()
	waitFor(t, "this run's lowering in the file", func() bool {
		f, err := store.Load()
		return err == nil && f.Progress.Hand != nil && !f.Progress.Hand.Up
	})
	// This run raises it again; an older act (another terminal's
	// lowering, made before it) written late changes nothing, a newer
	// one lowers it.
	pub.RaiseHand("다시")
	up := pub.Hand()
	if up == nil {
		t.Fatal("raising in this run: no hand")
	}
	waitFor(t, "this run's raising in the file", func() bool {
		f, err := store.Load()
		return err == nil && f.Progress.Hand != nil && f.Progress.Hand.Up && f.Progress.Hand.Step == 3
	})
	stale := state.Progress{Hand: &state.HandAct{At: up.Raised.Add(-time.Second)}}
	followed(func(u Update) bool { pub.Publish(u); return true }, stale)
	if h := pub.Hand(); h == nil || !h.Raised.Equal(up.Raised) {
		t.Fatalf("an older lowering took the newer hand down: %+v", h)
	}
	if _, err := store.RecordHand(state.HandAct{At: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the other terminal's newer lowering", func() bool { return pub.Hand() == nil })
}

// A hand the file kept from an earlier run (or raised from a shell with
// no labmate running) goes up again at the next start, once the first
// report says where the learner is, unless its step passed since.
func TestSeededHandWaitsForTheFirstReport(t *testing.T) {
	at := time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		sts  []checks.Status
		want int // the hand's step, 0: none
	}{
		{"still stuck", []checks.Status{checks.Passed, checks.Failed}, 2},
		{"passed since", []checks.Status{checks.Passed, checks.Passed, checks.Failed}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(class.Identity{Learner: "learner-01", Lab: "gpu-incident"}, nil)
			Seed(tr.Apply, state.Progress{Hand: &state.HandAct{Up: true, Step: 2, Note: "전에", At: at}}, false)
			if h := tr.Record().Hand; h != nil {
				t.Fatalf("a hand before any report: %+v", h)
			}
			tr.Apply(Update{Report: (&feed{}).report(tc.sts...)})
			h := tr.Record().Hand
			switch {
			case tc.want == 0 && h != nil:
				t.Errorf("hand on a passed step: %+v", h)
			case tc.want > 0 && (h == nil || h.Step != tc.want || !h.Raised.Equal(at) || h.Note != "전에"):
				t.Errorf("hand %+v, want step %d raised at %v", h, tc.want, at)
			}
		})
	}
}

// A hand that another terminal raised, once sent, changes the
// publisher's status (the TUI draws its strip again on a status), and
// so does its lowering.
func TestAHandFromElsewhereChangesTheStatus(t *testing.T) {
	cs := kubefake.New(recordObject("learner-01", "gpu-incident"))
	pub := NewPublisher(PublisherConfig{Client: cs, Namespace: testNS, Interval: 10 * time.Millisecond,
		Identity: class.Identity{Learner: "learner-01", Lab: "gpu-incident"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go pub.Run(ctx)
	pub.Publish(Update{Report: (&feed{}).report(checks.Passed, checks.Failed)})
	next := func(what string, ok func(Status) bool) {
		t.Helper()
		var last Status
		waitFor(t, what, func() bool {
			select {
			case last = <-pub.Statuses():
			default:
			}
			return ok(last)
		})
	}
	next("connected without a hand", func(st Status) bool { return st.State == Connected && !st.Pending && st.Hand.IsZero() })
	at := time.Now().Add(-time.Minute)
	followed(func(u Update) bool { pub.Publish(u); return true }, state.Progress{Hand: &state.HandAct{Up: true, Step: 2, At: at}})
	next("a status naming the hand", func(st Status) bool { return st.Hand.Equal(at.UTC().Truncate(time.Second)) })
	followed(func(u Update) bool { pub.Publish(u); return true }, state.Progress{Hand: &state.HandAct{At: at.Add(time.Second)}})
	next("a status without it", func(st Status) bool { return st.State == Connected && st.Hand.IsZero() && !st.Pending })
}
