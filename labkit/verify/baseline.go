package verify

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/safefile"
	"github.com/labhub/labmate/sandbox"
)

// A near-miss of step n is tried from its baseline: the lab's start with
// the solutions of the steps before it applied and passed (Mutant.prefix
// of them). Making that again for every near-miss (reset the sandbox,
// replay each solution's kubectl, one process per command) was most of a
// trial's time. So the first trial from a baseline keeps it: the cluster's
// inventory (every object's UID and version), a copy of the lab root, the
// run's memory of the past and each step's verdict. The next trial from it
// rewinds the sandbox (sandbox.Rewind: what the last near-miss added is
// deleted, and the cluster must then hold exactly the inventory's objects,
// unchanged) and starts a run on a copy of the root that remembers what
// the kept one did, as labmate resumes a learner's progress. It is used
// only when that run then shows every step as the kept one did;
// otherwise, as when the last near-miss changed or deleted anything of
// the baseline, the trial resets the sandbox and replays the solutions.

// baseline is a kept baseline: one at a time, the last a trial made
// (any other reset or rewind of the sandbox leaves nothing to rewind to).
type baseline struct {
	solved int // the steps whose solutions it has
	inv    sandbox.Inventory
	root   string // a copy of the lab root as it stood
	memory checks.Witness
	shown  []stepShown
}

// stepShown is what a step showed: its status and each check's.
type stepShown struct {
	status checks.Status
	checks []string
}

func shownOf(rep engine.Report) []stepShown {
	out := make([]stepShown, len(rep.Steps))
	for i, st := range rep.Steps {
		out[i].status = st.Status
		for _, c := range st.Checks {
			out[i].checks = append(out[i].checks, c.ID+" "+string(c.Status))
		}
	}
	return out
}

func sameShown(a, b []stepShown) bool {
	return slices.EqualFunc(a, b, func(x, y stepShown) bool { return x.status == y.status && slices.Equal(x.checks, y.checks) })
}

// maxMisses is how many trials in a row may fail to resume the baseline
// of so many solved steps before the trials from it stop keeping one
// (their near-misses change what the solutions made): prover.misses.
const maxMisses = 3

// resume sets up the baseline of n solved steps from the one kept, when
// the sandbox rewinds to it and a run from it shows what the kept one
// showed: the session, or nil (the trial makes the baseline afresh).
func (p *prover) resume(ctx context.Context, n int) *session {
	b := p.base
	if b == nil || b.solved != n || p.misses[n] >= maxMisses {
		return nil
	}
	at := time.Now()
	ok, err := sandbox.Rewind(ctx, p.conn, b.inv)
	spent("trial.rewind", at, "prefix", n, "ok", ok, "err", err)
	if err != nil || !ok {
		p.misses[n]++
		return nil
	}
	at = time.Now()
	sess, err := p.newSession(ctx, "", b)
	if err != nil {
		return nil
	}
	t := *p
	t.session = sess
	rep, ready := t.st.Until(ctx, p.o.Timeout, 0, func(r engine.Report) bool { return r.Ready })
	if !ready || !sameShown(shownOf(rep), b.shown) {
		spent("trial.resume_refused", at, "prefix", n)
		sess.close()
		p.misses[n]++
		return nil
	}
	p.misses[n] = 0
	spent("trial.resume", at, "prefix", n)
	return sess
}

// keep keeps the baseline the trial's session stands at, n steps solved,
// once what the solutions caused has arrived; nothing when the sandbox
// keeps changing meanwhile, or the root cannot be copied.
func (p *prover) keep(ctx context.Context, t *prover, n int) {
	if p.base != nil {
		// Whatever this trial reset or rewound, the kept baseline is no
		// longer what the sandbox can rewind to.
		_ = os.RemoveAll(p.base.root)
		p.base = nil
	}
	if p.misses[n] >= maxMisses {
		return
	}
	at := time.Now()
	rep, ok := t.until(ctx, p.o.Timeout, func(r engine.Report) bool { return r.Ready && passedUpTo(n)(r) })
	if !ok {
		return
	}
	inv, err := sandbox.TakeInventory(ctx, p.conn)
	if err != nil {
		return
	}
	memory := t.recall()
	root := filepath.Join(p.tmp, fmt.Sprintf("baseline-%d", p.sessions))
	if err := safefile.CopyTree(t.root, root, false); err != nil {
		_ = os.RemoveAll(root)
		return
	}
	again, err := sandbox.TakeInventory(ctx, p.conn)
	if err != nil || !again.Equal(inv) {
		_ = os.RemoveAll(root)
		return
	}
	p.base = &baseline{solved: n, inv: inv, root: root, memory: memory, shown: shownOf(rep)}
	spent("trial.keep", at, "prefix", n, "objects", inv.Len())
}

func cloneWitness(w checks.Witness) checks.Witness {
	return checks.Witness{Facts: maps.Clone(w.Facts)}
}
