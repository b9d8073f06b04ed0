package verify

import (
	"context"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
)

// try runs a mutant for real: the sandbox back at the lab's start (when
// the lab reads it), a session of its own, the solutions of the steps
// before it each waited for until it passes, then the mutant's actions,
// then the verdict: the step passing within its grace is a survivor, else
// the mutant is killed by the first check of the step that did not pass.
//
// A trial whose baseline cannot be set up (the sandbox does not reset,
// the session is not ready, an earlier step's reference does not pass
// again) says nothing of the lab: it is tried again after a backoff, and
// when it still cannot run it is its own verdict (outEnv), which makes
// the proof "could not prove", never a survivor.
func (p *prover) try(ctx context.Context, m *Mutant) {
	if p.kit.ReadsCluster(m.Step) && !p.clusterOK {
		m.Outcome, m.Note = outNotTried, msg("verify.untried.no_cluster")
		return
	}
	start := time.Now()
	why, tries := retrying(ctx, baselineBackoff, func() string { return p.trial(ctx, m) })
	switch {
	case why == "" && tries > 0: // the trial decided it
	case ctx.Err() != nil:
		m.Outcome, m.Note = outNotTried, msg("verify.untried.stopped")
	default:
		m.Outcome, m.Note = outEnv, msg("verify.untried.env", "why", why, "tries", tries, "waited", time.Since(start))
	}
}

// retrying calls once until it returns "" or b's steps are spent,
// waiting b's next step between calls (apimachinery's
// ExponentialBackoffWithContext); it returns the last call's reason (""
// when one succeeded) and how many calls it made. A stopped proof makes
// no more calls.
func retrying(ctx context.Context, b wait.Backoff, once func() string) (why string, tries int) {
	_ = wait.ExponentialBackoffWithContext(ctx, b, func(context.Context) (bool, error) {
		tries++
		why = once()
		return why == "", nil
	})
	return why, tries
}

// baselineBackoff spaces the tries of a trial whose baseline could not be
// set up: three tries, 5 s then 15 s apart, so a machine busy for half a
// minute does not decide a proof.
var baselineBackoff = wait.Backoff{Duration: 5 * time.Second, Factor: 3, Steps: 3}

// trial is one try of m: it sets up the baseline and, when that holds,
// decides m's verdict and returns "". Otherwise it returns why the
// baseline could not be set up, and m is left undecided. The baseline is
// the one kept by an earlier trial when the sandbox rewinds to it
// (baseline.go), else made afresh: the sandbox reset, a new session, the
// solutions before m's step each waited for until it passes.
func (p *prover) trial(ctx context.Context, m *Mutant) (why string) {
	began := time.Now()
	cluster := p.clusterOK && p.readsClusterUpTo(m.Step)
	var sess *session
	if cluster {
		sess = p.resume(ctx, m.prefix)
	}
	defer func() {
		if sess == nil {
			return
		}
		at := time.Now()
		sess.close()
		spent("trial.close", at, "step", m.Step)
		spent("trial", began, "step", m.Step, "outcome", m.Outcome, "mutant", m.Desc, "lane", p.lane)
	}()
	if sess == nil {
		if cluster {
			if err := p.reset(ctx); err != nil {
				return err.Error()
			}
			spent("trial.reset", began, "step", m.Step)
		}
		at := time.Now()
		var err error
		if sess, err = p.newSession(ctx, "", nil); err != nil {
			return err.Error()
		}
		t := *p
		t.session = sess
		// Nothing passes at the lab's start: no need to let the reports
		// settle first.
		if _, ok := t.st.Until(ctx, p.o.Timeout, 0, func(r engine.Report) bool { return r.Ready }); !ok {
			return msg("verify.not_ready", "timeout", p.o.Timeout)
		}
		spent("trial.session", at, "step", m.Step)
		for k := 1; k <= m.prefix; k++ {
			at := time.Now()
			if _, err := t.apply(ctx, p.solveOf(k)); err != nil {
				return msg("verify.untried.prefix", "step", k, "err", oneLine(err.Error()))
			}
			spent("trial.prefix.apply", at, "step", m.Step, "prefix", k)
			at = time.Now()
			// Step k could not have passed before its solution ran: no need
			// to let the reports settle first.
			if _, ok := t.st.Until(ctx, p.o.Timeout, 0, passedUpTo(k)); !ok {
				return msg("verify.untried.prefix_failed", "step", k, "timeout", p.o.Timeout)
			}
			spent("trial.prefix.pass", at, "step", m.Step, "prefix", k)
		}
		if cluster {
			p.keep(ctx, &t, m.prefix)
		}
	}
	t := *p
	t.session = sess
	t.verdict(ctx, m)
	return ""
}

// verdict runs the mutant's actions and watches its step meanwhile: the
// step passing at any moment, while they run or within the grace after,
// makes a survivor; else the mutant is killed by the first check of the
// step that did not pass. The actions may wait for what never comes
// (kubectl wait on a pod the mutant made unschedulable): they are bounded
// by the budget.
func (p *prover) verdict(ctx context.Context, m *Mutant) {
	actx, cancel := context.WithTimeout(ctx, p.budget(m.Step))
	defer cancel()
	done := make(chan struct{})
	began := time.Now()
	go func() {
		defer close(done)
		defer spent("trial.acts", began, "step", m.Step)
		for _, a := range m.acts {
			if _, err := p.apply(actx, a); err != nil {
				return // a near-miss whose commands fail is judged by what they left
			}
		}
	}()
	var graceC <-chan time.Time
	var graced time.Time
	acting := (<-chan struct{})(done) // nil once the actions ended
	for {
		select {
		case <-ctx.Done():
			cancel()
			<-done
			m.Outcome, m.Note = outNotTried, msg("verify.untried.stopped")
			return
		case u := <-p.st.Updates():
			p.st.Take(u)
			if st := u.Step(m.Step); st != nil && st.Status == checks.Passed {
				cancel()
				<-done
				m.Outcome = outSurvived
				return
			}
		case <-acting:
			acting, graceC = nil, time.After(p.grace(m.Step))
			graced = time.Now()
		case <-graceC:
			spent("trial.grace", graced, "step", m.Step)
			m.Outcome = outKilled
			last := p.st.Last()
			if st := last.Step(m.Step); st != nil {
				if c := st.FirstFailing(); c != nil {
					m.By = c.ID
				}
			}
			return
		}
	}
}

// readsClusterUpTo says whether any step up to n reads the cluster.
func (p *prover) readsClusterUpTo(n int) bool {
	for i := 1; i <= n; i++ {
		if p.kit.ReadsCluster(i) {
			return true
		}
	}
	return false
}

// budget bounds a mutant's actions: twice what the step's solution took,
// at least five seconds, at most the case timeout.
func (p *prover) budget(n int) time.Duration {
	p.mut.mu.Lock()
	d := 2 * p.mut.script[n]
	p.mut.mu.Unlock()
	return min(max(d, 5*time.Second), p.o.Timeout)
}

// grace is how long a mutant's step may take to pass once its actions
// ended before it counts as refused: three times what the reference took
// once its solution ran, at least two seconds, at most the case timeout.
func (p *prover) grace(n int) time.Duration {
	p.mut.mu.Lock()
	d := 3 * p.mut.pass[n]
	p.mut.mu.Unlock()
	return min(max(d, 2*time.Second), p.o.Timeout)
}

// answerPath is a reference file in the answers directory.
func (p *prover) answerPath(rel string) string {
	return filepath.Join(p.answers, filepath.FromSlash(rel))
}

// serverRefuses asks the sandbox's API server, with a server-side dry
// run of each object of a manifest, whether it would take them: a
// manifest it refuses as invalid cannot be applied, so a step whose
// solution applies it cannot pass (the object stays missing). why is the
// server's own reason. Any other answer (a namespace not there yet, the
// server unreachable) decides nothing.
func (p *prover) serverRefuses(ctx context.Context, body []byte) (bool, string) {
	if !p.clusterOK {
		return false, ""
	}
	mapper, err := p.conn.Mapper()
	if err != nil {
		return false, ""
	}
	docs, err := parseYAML(body)
	if err != nil {
		return true, err.Error()
	}
	for _, d := range docs {
		var obj map[string]any
		if err := d.Decode(&obj); err != nil || obj == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		gvk := u.GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" || u.GetName() == "" {
			return true, "apiVersion, kind, metadata.name"
		}
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return true, err.Error()
		}
		// Created afresh under another name, so the object is judged
		// whole, not merged into the one the proof left there.
		u.SetGenerateName(u.GetName() + "-")
		u.SetName("")
		var ri dynamic.ResourceInterface = p.dyn.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			ns := u.GetNamespace()
			if ns == "" {
				ns = metav1.NamespaceDefault
			}
			ri = p.dyn.Resource(mapping.Resource).Namespace(ns)
		}
		_, err = ri.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "labmate-verify"})
		if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
			return true, err.Error()
		}
	}
	return false, ""
}
