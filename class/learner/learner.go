package learner

// The learner's side of a class, for one run of labmate: join the class
// (publish), publish one evaluation (check --class), preview the record,
// hand over what earlier runs recorded.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/latest"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/state"
)

// JoinConfig is a learner's run joining its class.
type JoinConfig struct {
	// Learner is the --class kubeconfig, opened (Open).
	Learner *Learner
	// Identity is who publishes; Join fills in Learner from it.
	Identity class.Identity
	// Progress is what earlier runs recorded (hints, the page), handed
	// over first; Page says whether the page is published (the TUI has
	// pages, check --watch has none).
	Progress state.Progress
	Page     bool
	// Tap hands the publisher every update of the run
	// (labrun.Run.Tap); nil publishes none.
	Tap func(func(labrun.Update))
	// Lab names the mistakes of failing checks (Lab.Mistake; nil names
	// none).
	Lab *content.Lab
	// Hands watches the instructor's acknowledgements of the learner's
	// raised hands (Publisher.Acks): the TUI, which raises them.
	Hands bool
	// Store is the learner's progress file (nil: none): followed while
	// the run lasts, so that steps `labmate catch-up` and hands `labmate
	// class hand` record from another terminal are published at once,
	// and the run's own hand acts are written there.
	Store *state.Store
}

// Join starts publishing to the learner's class until ctx ends. A
// connection that cannot be used is an error for the caller to show,
// never the end of the lab: the lab goes on without a class.
func Join(ctx context.Context, cfg JoinConfig) (*Publisher, error) {
	l := cfg.Learner
	cs, err := l.Requests().Typed()
	if err != nil {
		return nil, err
	}
	id := cfg.Identity
	id.Learner = l.ID
	pc := PublisherConfig{Client: cs, Namespace: l.Namespace, Identity: id}
	if cfg.Lab != nil {
		pc.Mistake = cfg.Lab.Mistake
	}
	pub := NewPublisher(pc)
	if cfg.Hands {
		// A watch: on the connection without a request timeout.
		wcs, err := l.Conn.Typed()
		if err != nil {
			return nil, err
		}
		acks, out := WatchAcks(ctx, wcs, l.Namespace, l.ID, id.Lab), make(chan class.Ack, 1)
		pub.acks = out
		go func() {
			defer close(out)
			for a := range acks {
				pub.Publish(Update{Ack: &a})
				latest.Send(ctx, out, a)
			}
		}()
	}
	Seed(func(u Update) bool { pub.Publish(u); return true }, cfg.Progress, cfg.Page)
	if cfg.Store != nil {
		acts := make(chan state.HandAct, 1)
		pub.handActs = acts
		go follow(ctx, cfg.Store, pub, acts)
	}
	if cfg.Tap != nil {
		cfg.Tap(func(u labrun.Update) { pub.Publish(Update{Report: &u}) })
	}
	go pub.Run(ctx)
	return pub, nil
}

// Seed hands what an earlier run recorded (hint levels, the page, the
// steps caught up, the hand) to a tracker or publisher.
func Seed(apply func(Update) bool, p state.Progress, page bool) {
	for step, n := range p.HintsSeen {
		apply(Update{Hints: &Hints{Step: step, Seen: n, Solution: p.SolutionSeen[step]}})
	}
	for step, seen := range p.SolutionSeen {
		if seen {
			apply(Update{Hints: &Hints{Step: step, Seen: p.HintsSeen[step], Solution: true}})
		}
	}
	followed(apply, p)
	if page {
		cur := p.CurrentStep
		apply(Update{Page: &cur})
	}
}

// PublishWait bounds PublishOnce.
const PublishWait = 15 * time.Second

// PublishOnce publishes one evaluation (`check --class` without --watch)
// and waits, until ctx ends, for it to land: one evaluation, one try;
// check is not a session that waits for the class to come back. The
// error says in Korean what kept it from landing.
func PublishOnce(ctx context.Context, pub *Publisher, rep engine.Report) error {
	rep.Ready = true // what the learner sees now, settled or not
	u := labrun.Next(nil, rep)
	pub.Publish(Update{Report: &u})
	failed := func(err error) error {
		return errors.New(content.Msg("class.cli.publish_failed", "err", Explain(err)))
	}
	for {
		select {
		case st := <-pub.Statuses():
			if st.State == Connected && !st.Pending {
				return nil
			}
			if st.State == Refused || st.State == Retrying {
				return failed(st.Err)
			}
		case <-ctx.Done():
			return failed(pub.Status().Err)
		}
	}
}

// Preview is exactly the record a learner's labmate would publish now
// (`class preview`): who, what earlier runs recorded, and rep as the
// learner sees it, settled or not, its mistakes named by lab.
func Preview(id class.Identity, lab *content.Lab, p state.Progress, rep engine.Report) class.Record {
	rep.Ready = true
	t := NewTracker(id, nil)
	t.NameMistakes(lab.Mistake)
	Seed(t.Apply, p, false)
	u := labrun.Next(nil, rep)
	t.Apply(Update{Report: &u})
	return t.Record()
}

// Narrate says on w, in Korean, when publishing starts to fail (and
// why) and when it works again: `check --watch --class` has no
// indicator, and a learner whose progress stopped reaching the class
// would not know. One line per change, none while nothing changes. It
// reads the publisher's statuses until ctx ends, so it is their one
// reader.
func Narrate(ctx context.Context, pub *Publisher, w io.Writer) {
	var failing State
	for {
		select {
		case <-ctx.Done():
			return
		case st := <-pub.Statuses():
			switch st.State {
			case Connected:
				if failing != "" {
					fmt.Fprintln(w, content.Msg("class.publish.recovered"))
					failing = ""
				}
			case Retrying, Refused:
				if failing != st.State {
					fmt.Fprintln(w, content.Msg("class.publish."+string(st.State), "err", Explain(st.Err)))
					failing = st.State
				}
			}
		}
	}
}
