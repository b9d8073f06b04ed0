package learner

// `labmate class hand`: a learner's hand raised or lowered from a
// terminal of its own, beside (or without) a running labmate of theirs.

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/state"
)

var (
	// ErrNotPublished: the learner's record holds no step yet (no
	// labmate of theirs ever published to the class), so there is no
	// step to raise a hand on.
	ErrNotPublished = errors.New("record not published yet")
	// ErrNoStep: every step passed.
	ErrNoStep = errors.New("no step to raise a hand on")
)

// SetHand does a learner's hand act (state.HandAct; At set) for lab,
// reaching the class with l's connection. A raised hand goes up on the
// step the record says the learner is on. The act is first handed to
// keep (the progress file: a running labmate of the learner's takes it
// from there and publishes it, and its next start does), then written
// into the record itself, so it shows whether or not a labmate runs:
// only the record's hand (and the step's count of hands) changes, on
// the record as read, with its resourceVersion as a precondition, read
// again and redone on a conflict, so a record a running labmate sent
// meanwhile is never overwritten with an older one. It returns the act
// as kept (with its step) and the hand now up (nil when lowered).
func SetHand(ctx context.Context, l *Learner, lab string, act state.HandAct, keep func(state.HandAct) error) (state.HandAct, *class.Hand, error) {
	cs, err := l.Requests().Typed()
	if err != nil {
		return act, nil, err
	}
	rec, rv, err := readRecord(ctx, cs, l.Namespace, class.ObjectName(l.ID, lab))
	if err != nil {
		return act, nil, err
	}
	if act.Up {
		switch {
		case len(rec.Steps) == 0:
			return act, nil, ErrNotPublished
		case rec.Current == 0:
			return act, nil, ErrNoStep
		}
		act.Step = rec.Current
	}
	if keep != nil {
		if err := keep(act); err != nil {
			return act, nil, err
		}
	}
	first := true
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !first {
			if rec, rv, err = readRecord(ctx, cs, l.Namespace, class.ObjectName(l.ID, lab)); err != nil {
				return err
			}
		}
		first = false
		next, changed := WithHand(rec, act)
		rec = next
		if !changed {
			return nil
		}
		return applyRecord(ctx, cs, l.Namespace, rec, rv)
	})
	return act, rec.Hand, err
}

// readRecord reads a record object: the record and its resourceVersion.
func readRecord(ctx context.Context, cs kube.Interface, ns, name string) (class.Record, string, error) {
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return class.Record{}, "", err
	}
	raw, ok := cm.Data[class.DataKey]
	if !ok {
		return class.NewRecord(class.Identity{}), cm.ResourceVersion, nil // as init made it
	}
	rec, err := class.Unmarshal([]byte(raw))
	return rec, cm.ResourceVersion, err
}

// WithHand is rec with the hand act done on it, as a running labmate's
// tracker would do it, and whether that changed rec: a hand goes up on
// the act's step (named by its At, to the second) unless that step
// passed or the same hand is up already; a lowering takes the hand
// down. The raised hand carries the step's hint rung and failing
// checks by ID (their messages are the running labmate's to add: this
// terminal has none).
func WithHand(rec class.Record, act state.HandAct) (class.Record, bool) {
	if !act.Up {
		if rec.Hand == nil {
			return rec, false
		}
		rec.Hand, rec.Updated = nil, act.At.UTC().Truncate(time.Second)
		return rec, true
	}
	s := rec.Step(act.Step)
	if s == nil || s.Status == checks.Passed {
		return rec, false
	}
	h := class.Raise(act.Step, act.At, act.Note, s.Hints, s.Solution)
	if rec.Hand != nil && rec.Hand.Step == act.Step && rec.Hand.Raised.Equal(h.Raised) {
		return rec, false
	}
	for _, f := range s.Failing {
		if len(h.Checks) < class.MaxHandChecks {
			h.Checks = append(h.Checks, class.HandCheck{ID: class.Clip(f.ID, 128)})
		}
	}
	s.Hands = min(s.Hands+1, class.MaxHands)
	rec.Hand, rec.Updated = h, h.Raised
	return rec, true
}
