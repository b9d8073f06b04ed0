package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/safefile"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/action"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe/cluster"
	"github.com/labhub/labmate/sandbox"
)

// prover is one proof of a lab: what it reads (the answers), the sandbox
// it may touch, and the session its cases run in now.
type prover struct {
	o    Options
	text *content.Lab
	kit  *labkit.Lab

	answers, kubeconfigFile string
	conn                    kube.Conn // the sandbox, once the proof may touch it
	cs                      kube.Interface
	dyn                     dynamic.Interface
	clusterOK               bool // the proof may touch the sandbox
	tmp                     string
	sessions                int // how many sessions were made, for their roots' names
	lane                    int // which sandbox of the mutation proof (lanes.go): 1 is Cluster's

	// base is the baseline the last trial kept (baseline.go); misses
	// counts, by solved steps, the trials in a row that could not
	// resume theirs.
	base   *baseline
	misses map[int]int

	*session

	// mut keeps what the mutation proof needs of the proof (--mutants).
	mut *mutationLog
}

// session is one run of the lab from its start: a fresh lab root (the
// lab's start/ laid out), a labmate run on the real sources, and the
// stream of its reports. The proof is one session; each mutant is tried
// in one of its own.
type session struct {
	root    string
	run     *labrun.Run
	st      *labrun.Stream
	recPath string

	mu     sync.Mutex
	memory checks.Witness // the run's memory of the past, as it last changed
}

// remembered keeps the run's memory as it changed (labrun's Remembered).
func (s *session) remembered(w checks.Witness) {
	s.mu.Lock()
	s.memory = w
	s.mu.Unlock()
}

// recall is the run's memory of the past as it last changed.
func (s *session) recall() checks.Witness {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneWitness(s.memory)
}

// prepare makes the lab root and the answers on disk, finds the sandbox
// (and refuses anything else), resets it to the lab's topology, and starts
// the engine on the real sources.
func (p *prover) prepare(ctx context.Context) error {
	var err error
	if p.tmp, err = os.MkdirTemp("", "labmate-verify-"); err != nil {
		return &EnvError{msg("verify.tmp", "err", err)}
	}
	p.answers = filepath.Join(p.tmp, "answers")
	err = action.Extract(p.text.FS, p.text.Answers, p.answers)
	if errors.Is(err, fs.ErrNotExist) {
		// A lab without its reference is the lab's fault, not the
		// environment's: each solution that copies an answer fails its
		// row naming the file (verify.no_answer), and the proof exits 1.
		err = os.MkdirAll(p.answers, 0o755)
	}
	if err != nil {
		return &EnvError{msg("verify.answers", "dir", p.text.Answers, "err", err)}
	}
	needCluster := len(p.kit.ClusterSteps()) > 0
	if needCluster && !p.o.Cluster.Off {
		if err := p.connect(ctx); err != nil {
			return err
		}
	}
	if !p.clusterOK {
		// File steps may run scripts too: whatever kubectl they call
		// must reach no cluster, not the one the author's shell points at.
		p.kubeconfigFile = filepath.Join(p.tmp, "no-cluster.kubeconfig")
		if err := os.WriteFile(p.kubeconfigFile, []byte(action.NoClusterKubeconfig), 0o600); err != nil {
			return &EnvError{msg("verify.tmp", "err", err)}
		}
	}
	sess, err := p.newSession(ctx, p.o.Record, nil)
	if err != nil {
		return err
	}
	p.session = sess
	return nil
}

// connect refuses a cluster that is not a labmate sandbox, writes the
// kubeconfig the answers' kubectl reaches it with, and resets the
// sandbox for the lab: its namespaces gone, its nodes as its topology
// says.
func (p *prover) connect(ctx context.Context) error {
	conn := p.o.Cluster.Conn
	if conn == nil {
		return &EnvError{msg("verify.no_sandbox", "err", p.o.Cluster.Why())}
	}
	have, err := sandbox.Identify(ctx, conn)
	if errors.Is(err, sandbox.ErrNotSandbox) {
		return &EnvError{msg("verify.not_sandbox", "server", conn.Host(), "context", conn.Origin().Context, "err", err)}
	}
	if err != nil {
		return &EnvError{msg("verify.unreachable", "server", conn.Host(), "context", conn.Origin().Context, "err", kube.Explain(err))}
	}
	if have != "" && have != p.text.ID {
		// Its objects are a learner's progress on that lab.
		return &EnvError{msg("verify.other_lab", "context", conn.Origin().Context, "have", have, "lab", p.text.ID)}
	}
	// The answers' kubectl is a child process: it gets the sandbox's
	// context alone, in a file of the proof's.
	p.kubeconfigFile = filepath.Join(p.tmp, "kubeconfig")
	if err := conn.WriteKubeconfig(p.kubeconfigFile); err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", kube.Explain(err))}
	}
	// A sandbox: the proof's many lists wait on no limit of its own.
	if conn, err = kube.Unthrottled(conn); err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", kube.Explain(err))}
	}
	cs, err := conn.Typed()
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", kube.Explain(err))}
	}
	dyn, err := conn.Dynamic()
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", kube.Explain(err))}
	}
	p.conn, p.cs, p.dyn, p.clusterOK = conn, cs, dyn, true
	fmt.Fprintln(p.o.Progress, msg("verify.progress.reset"))
	return p.reset(ctx)
}

// reset brings the sandbox back to the lab's start: its topology, its
// start objects, its verify.toml reset script.
func (p *prover) reset(ctx context.Context) error {
	nodes, err := sandbox.NodesOf(p.text)
	if err != nil {
		return &EnvError{err.Error()}
	}
	manifests, err := sandbox.ManifestsOf(p.text)
	if err != nil {
		return &EnvError{err.Error()}
	}
	at := time.Now()
	if err := sandbox.Reset(ctx, p.conn, sandbox.Start{Lab: p.text.ID, Namespaces: p.text.Cluster.Namespaces, Nodes: nodes, Wipe: p.kit.Wipe(), Manifests: manifests}); err != nil {
		return &EnvError{msg("verify.reset_failed", "err", kube.Explain(err))}
	}
	spent("reset.sandbox", at)
	if p.text.Verify.Reset != "" {
		at := time.Now()
		if out, err := p.shell(ctx, p.text.Verify.Reset); err != nil {
			return &EnvError{msg("verify.reset_failed", "err", fmt.Sprintf("%v\n%s", err, out))}
		}
		spent("reset.script", at)
	}
	return nil
}

// newSession starts a run of the lab over a fresh root (record: the
// trace it writes, "" none). From a baseline (nil: the lab's start), the
// root is a copy of the baseline's and the run remembers what the
// baseline's run did.
func (p *prover) newSession(ctx context.Context, record string, from *baseline) (*session, error) {
	p.sessions++
	s := &session{root: filepath.Join(p.tmp, fmt.Sprintf("root-%d", p.sessions))}
	if err := os.MkdirAll(s.root, 0o755); err != nil {
		return nil, &EnvError{msg("verify.tmp", "err", err)}
	}
	// The run lays the lab's start/ out in the root, as for a learner.
	o := labrun.Options{Lab: p.text, Steps: p.kit.Steps, Scope: p.kit.Scope, Root: s.root, Remembered: s.remembered}
	if from != nil {
		o.Witness, s.memory = cloneWitness(from.memory), cloneWitness(from.memory)
	}
	switch {
	case p.clusterOK:
		o.Cluster = kube.Target{Conn: p.conn}
	case len(p.kit.ClusterSteps()) > 0:
		o.Cluster = kube.Target{Off: true} // the cluster steps say they were not verified
	default:
		o.Scope = cluster.Scope{} // file steps alone: no cluster source
	}
	// Messages and the trace name the lab's default root as the LabHub
	// pages have it, whoever proves the lab; the files really are under
	// root.
	o.Shown = labroot.AtLabHub(p.text.DefaultRoot)
	run, err := labrun.New(o)
	if err != nil {
		return nil, &EnvError{msg("verify.no_sandbox", "err", err)}
	}
	s.run = run
	if from != nil {
		// What the run laid out gives way to the baseline's root as it
		// stood, before any source reads it (a start file a solution
		// removed stays removed).
		if err := os.RemoveAll(s.root); err != nil {
			return nil, &EnvError{msg("verify.tmp", "err", err)}
		}
		if err := safefile.CopyTree(from.root, s.root, false); err != nil {
			return nil, &EnvError{msg("verify.tmp", "err", err)}
		}
	}
	if record != "" {
		s.recPath = record + ".partial"
		if err := run.Record(s.recPath, p.o.Labmate); err != nil {
			return nil, &EnvError{msg("verify.record_failed", "path", record, "err", err)}
		}
	}
	if p.mut != nil && p.session == nil {
		run.Observe(p.mut.observe) // the proof's own session only
	}
	s.st = run.Start(ctx)
	return s, nil
}

// close ends the session's run and removes its root.
func (s *session) close() {
	if s == nil {
		return
	}
	if s.run != nil {
		_ = s.run.Stop()
	}
	if s.recPath != "" {
		_ = os.Remove(s.recPath)
	}
	_ = os.RemoveAll(s.root)
}

func (p *prover) cleanup() {
	p.session.close()
	if p.tmp != "" {
		_ = os.RemoveAll(p.tmp)
	}
}
