package learner

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/kube/kubefake"
	"github.com/labhub/labmate/state"
)

// published is learner-01's record as their labmate sent it: step 1
// passed, step 2 failing (the current step), with a hint opened there.
func published(t *testing.T, cs *kubefake.Clientset) class.Record {
	t.Helper()
	f := &feed{}
	tr := NewTracker(class.Identity{Learner: "learner-01", Lab: "gpu-incident", Run: "run-a"}, nil)
	tr.Apply(Update{Report: f.report(checks.Passed, checks.Failed, checks.Waiting)})
	tr.Apply(Update{Hints: &Hints{Step: 2, Seen: 1}})
	if err := applyRecord(context.Background(), cs, testNS, tr.Record(), ""); err != nil {
		t.Fatal(err)
	}
	return tr.Record()
}

func classLearner(cs *kubefake.Clientset) *Learner {
	conn := kubefake.NewConn(cs, nil).WithOrigin(kube.Origin{Namespace: testNS, User: "learner-01"})
	return &Learner{Conn: conn, Namespace: testNS, ID: "learner-01"}
}

// A hand raised from another terminal goes up on the step the record
// says the learner is on, named by its time, kept first (the progress
// file) and then written into the record: only the hand and the step's
// count change, the run's record otherwise as its labmate sent it. A
// conflict (the running labmate sent meanwhile) is read again and
// redone; lowering takes the hand down.
func TestSetHandWritesOnlyTheHand(t *testing.T) {
	ctx := context.Background()
	cs := kubefake.New(recordObject("learner-01", "gpu-incident"))
	before := published(t, cs)
	var conflicts atomic.Int32
	cs.PrependReactor("patch", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "learner-01.gpu-incident", errors.New("changed"))
		}
		return false, nil, nil
	})
	at := time.Date(2026, 12, 7, 10, 0, 0, 700_000_000, time.UTC)
	var kept []state.HandAct
	act, hand, err := SetHand(ctx, classLearner(cs), "gpu-incident", state.HandAct{Up: true, Note: "막혔어요\x1b[2J", At: at},
		func(a state.HandAct) error { kept = append(kept, a); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if act.Step != 2 || len(kept) != 1 || kept[0].Step != 2 || !kept[0].At.Equal(at) {
		t.Fatalf("act %+v, kept %+v: want step 2 kept once with its time", act, kept)
	}
	if conflicts.Load() < 2 {
		t.Fatalf("%d writes: the conflict was not redone", conflicts.Load())
	}
	got := storedRecord(t, cs, "learner-01")
	want := &class.Hand{Step: 2, Raised: at.Truncate(time.Second), Note: "막혔어요 [2J", Hints: 1, Checks: []class.HandCheck{{ID: "bad-check"}}}
	if got.Hand == nil || got.Hand.Step != want.Step || !got.Hand.Raised.Equal(want.Raised) || got.Hand.Note != want.Note ||
		got.Hand.Hints != 1 || len(got.Hand.Checks) != 1 || got.Hand.Checks[0].ID != "bad-check" {
		t.Fatalf("hand in the record %+v, want %+v", got.Hand, want)
	}
	if hand == nil || !hand.Raised.Equal(want.Raised) {
		t.Errorf("SetHand returned hand %+v", hand)
	}
	if got.Run != before.Run || got.Current != 2 || got.Step(2).Hands != 1 || len(got.Steps) != 3 || got.Step(1).Status != checks.Passed {
		t.Errorf("the rest of the record changed: %+v", got)
	}

	// The same act again (the running labmate already wrote it): nothing
	// to write.
	writes := conflicts.Load()
	if _, _, err := SetHand(ctx, classLearner(cs), "gpu-incident", state.HandAct{Up: true, At: at.Add(100 * time.Millisecond)}, nil); err != nil {
		t.Fatal(err)
	}
	if conflicts.Load() != writes {
		t.Errorf("the hand already up was written again")
	}

	if _, hand, err := SetHand(ctx, classLearner(cs), "gpu-incident", state.HandAct{At: at.Add(time.Minute)}, nil); err != nil || hand != nil {
		t.Fatalf("lowering: hand %+v, %v", hand, err)
	}
	if got := storedRecord(t, cs, "learner-01"); got.Hand != nil || got.Step(2).Hands != 1 {
		t.Errorf("after lowering: hand %+v, hands %d", got.Hand, got.Step(2).Hands)
	}
}

// No step to raise a hand on: a record no labmate published yet, and
// one whose every step passed; nothing is kept then. A class that does
// not answer keeps nothing either.
func TestSetHandRefuses(t *testing.T) {
	ctx := context.Background()
	keep := func(state.HandAct) error { t.Error("a refused hand was kept"); return nil }
	up := state.HandAct{Up: true, At: time.Now()}

	cs := kubefake.New(recordObject("learner-01", "gpu-incident"))
	if _, _, err := SetHand(ctx, classLearner(cs), "gpu-incident", up, keep); !errors.Is(err, ErrNotPublished) {
		t.Errorf("a record never published: %v, want ErrNotPublished", err)
	}

	tr := NewTracker(class.Identity{Learner: "learner-01", Lab: "gpu-incident"}, nil)
	tr.Apply(Update{Report: (&feed{}).report(checks.Passed, checks.Passed)})
	if err := applyRecord(ctx, cs, testNS, tr.Record(), ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := SetHand(ctx, classLearner(cs), "gpu-incident", up, keep); !errors.Is(err, ErrNoStep) {
		t.Errorf("every step passed: %v, want ErrNoStep", err)
	}

	cs.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("down")
	})
	if _, _, err := SetHand(ctx, classLearner(cs), "gpu-incident", up, keep); err == nil {
		t.Error("a class that does not answer: no error")
	}
}
