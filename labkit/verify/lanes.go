package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/labhub/labmate/kube"
)

// A near-miss's trial mostly waits: for its commands' kubectl, for the
// cluster's controllers, for the grace after them. So the mutation proof
// can try near-misses on several sandboxes at once (Options.Lanes), one
// trial at a time on each, each lane with a baseline of its own
// (baseline.go). A verdict does not depend on the lane that reached it:
// every lane's sandbox is reset to the lab's start before its first
// trial, as the proof's own is, and a trial begins from a reset or from
// a rewind proven to hold exactly the lane's kept baseline.

// Lane makes one more sandbox for the mutation proof: its target, and
// what to do once the proof is done with it (release; nil: nothing).
// It is called once the proof found its own sandbox, so the lane's comes
// up while the proof's cases run.
type Lane func(ctx context.Context) (target kube.Target, release func(), err error)

// pendingLane is a lane on its way: its sandbox, once made.
type pendingLane struct {
	c    chan laneReady
	once sync.Once
	r    laneReady
}

type laneReady struct {
	target  kube.Target
	release func()
	err     error
}

// startLanes asks every lane for its sandbox at once.
func startLanes(ctx context.Context, lanes []Lane) []*pendingLane {
	out := make([]*pendingLane, len(lanes))
	for i, lane := range lanes {
		pl := &pendingLane{c: make(chan laneReady, 1)}
		out[i] = pl
		go func() {
			var r laneReady
			r.target, r.release, r.err = lane(ctx)
			pl.c <- r
		}()
	}
	return out
}

// wait is the lane's sandbox, once it is made (or why not).
func (pl *pendingLane) wait() laneReady {
	pl.once.Do(func() { pl.r = <-pl.c })
	return pl.r
}

// releaseLanes gives back every lane's sandbox, waiting for those still
// on their way.
func releaseLanes(lanes []*pendingLane) {
	for _, pl := range lanes {
		if r := pl.wait(); r.release != nil {
			r.release()
		}
	}
}

// tryAll tries the queued near-misses: on the proof's sandbox and on
// every lane whose sandbox came, each taking the next from the queue when
// its last trial is decided. With no lanes, one after another on the
// proof's sandbox, as always. A lane that gave no sandbox says so, also
// when there is nothing to try.
func (p *prover) tryAll(ctx context.Context, queue []*Mutant, lanes []*pendingLane) {
	work := make(chan *Mutant)
	run := func(l *prover) {
		for m := range work {
			start := time.Now()
			l.try(ctx, m)
			p.progressMutant(m, msg("verify.progress.tried", "took", time.Since(start)))
		}
	}
	var wg sync.WaitGroup
	first := *p
	first.base, first.misses, first.lane = nil, map[int]int{}, 1
	wg.Go(func() { run(&first) })
	for k, pl := range lanes {
		wg.Go(func() {
			r := pl.wait()
			if r.err == nil && len(queue) == 0 {
				return // nothing to try: the lane's sandbox is not even reset
			}
			var l *prover
			err := r.err
			if err == nil {
				l, err = p.newLane(ctx, k+2, r.target)
			}
			if err != nil {
				if ctx.Err() == nil {
					fmt.Fprintln(p.o.Progress, msg("verify.progress.lane_failed", "lane", k+2, "err", oneLine(err.Error())))
				}
				return
			}
			run(l)
		})
	}
queue:
	for _, m := range queue {
		select {
		case work <- m:
		case <-ctx.Done():
			break queue
		}
	}
	close(work)
	wg.Wait()
	for _, m := range queue {
		if m.Outcome == "" {
			m.Outcome, m.Note = outNotTried, msg("verify.untried.stopped")
		}
	}
}

// newLane is a prover for lane k's sandbox: the proof's lab, answers and
// reference timings, a directory, a kubeconfig and a baseline of its
// own, the sandbox reset to the lab's start.
func (p *prover) newLane(ctx context.Context, k int, target kube.Target) (*prover, error) {
	l := *p
	l.o.Cluster = target
	l.conn, l.cs, l.dyn, l.clusterOK = nil, nil, nil, false
	l.base, l.misses, l.sessions, l.lane = nil, map[int]int{}, 0, k
	l.tmp = filepath.Join(p.tmp, fmt.Sprintf("lane-%d", k))
	if err := os.MkdirAll(l.tmp, 0o755); err != nil {
		return nil, &EnvError{msg("verify.tmp", "err", err)}
	}
	// The lane's reset script runs in its own directory, and its trials'
	// sessions are never the proof's own (whose observations the
	// near-misses are made from).
	l.session = &session{root: filepath.Join(l.tmp, "scripts")}
	if err := os.MkdirAll(l.session.root, 0o755); err != nil {
		return nil, &EnvError{msg("verify.tmp", "err", err)}
	}
	if err := l.connect(ctx); err != nil {
		return nil, err
	}
	return &l, nil
}
