package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/kubeconfig"
	"github.com/labhub/labmate/internal/kubeerr"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/sandbox"
)

// prover is one run of a proof.
type prover struct {
	o    Options
	text *content.Lab
	kit  *labkit.Lab

	root, answers, kubeconfigFile string
	cs                            kubernetes.Interface
	clusterOK                     bool // the proof may touch the sandbox
	tmp                           string

	run     *labrun.Run
	st      *labrun.Stream
	recPath string

	messages map[string]bool // every message seen, for the placeholder check
}

// prepare makes the lab root and the answers on disk, finds the sandbox
// (and refuses anything else), resets it to the lab's topology, and starts
// the engine on the real sources.
func (p *prover) prepare(ctx context.Context) error {
	var err error
	if p.tmp, err = os.MkdirTemp("", "labmate-verify-"); err != nil {
		return &EnvError{msg("verify.tmp", "err", err)}
	}
	p.root, p.answers = filepath.Join(p.tmp, "root"), filepath.Join(p.tmp, "answers")
	if err := extract(p.text.FS, p.text.Answers, p.answers); err != nil {
		return &EnvError{msg("verify.answers", "dir", p.text.Answers, "err", err)}
	}
	if err := os.MkdirAll(p.root, 0o755); err != nil {
		return &EnvError{msg("verify.tmp", "err", err)}
	}
	if p.text.Start != "" {
		if err := extract(p.text.FS, p.text.Start, p.root); err != nil {
			return &EnvError{msg("verify.answers", "dir", p.text.Start, "err", err)}
		}
	}
	needCluster := len(p.kit.ClusterSteps()) > 0
	if needCluster && !p.o.NoCluster {
		if err := p.connect(ctx); err != nil {
			return err
		}
	}
	if !p.clusterOK {
		// File steps may run scripts too: whatever kubectl they call
		// must reach no cluster, not the one the author's shell points at.
		p.kubeconfigFile = filepath.Join(p.tmp, "no-cluster.kubeconfig")
		if err := os.WriteFile(p.kubeconfigFile, []byte(noClusterKubeconfig), 0o600); err != nil {
			return &EnvError{msg("verify.tmp", "err", err)}
		}
	}
	return p.startEngine(ctx)
}

// noClusterKubeconfig names a server under .invalid, a name that never
// resolves (RFC 2606).
const noClusterKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://no-cluster.labmate-verify.invalid"}}]
contexts: [{name: none, context: {cluster: none}}]
current-context: none
`

// connect loads the kubeconfig with labmate's one loader, refuses a
// cluster that is not a labmate sandbox, and resets the sandbox for the
// lab: its namespaces gone, its nodes as its topology says.
func (p *prover) connect(ctx context.Context) error {
	ko := kubeconfig.Options{Path: p.o.Kubeconfig, Context: p.o.Context}
	loaded, err := kubeconfig.Load(ko)
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", kubeerr.Explain(err))}
	}
	have, err := sandbox.Identify(ctx, loaded.Config)
	if errors.Is(err, sandbox.ErrNotSandbox) {
		return &EnvError{msg("verify.not_sandbox", "server", loaded.Config.Host, "context", loaded.Context, "err", err)}
	}
	if err != nil {
		return &EnvError{msg("verify.unreachable", "server", loaded.Config.Host, "context", loaded.Context, "err", kubeerr.Explain(err))}
	}
	if have != "" && have != p.text.ID {
		// Its objects are a learner's progress on that lab.
		return &EnvError{msg("verify.other_lab", "context", loaded.Context, "have", have, "lab", p.text.ID)}
	}
	p.kubeconfigFile = filepath.Join(p.tmp, "kubeconfig")
	ko.Context = loaded.Context
	if err := kubeconfig.WriteContext(ko, p.kubeconfigFile); err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", kubeerr.Explain(err))}
	}
	p.o.Kubeconfig, p.o.Context = p.kubeconfigFile, ""
	cs, err := kubernetes.NewForConfig(loaded.Config)
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", kubeerr.Explain(err))}
	}
	p.cs, p.clusterOK = cs, true
	nodes, err := sandbox.NodesOf(p.text)
	if err != nil {
		return &EnvError{err.Error()}
	}
	manifests, err := sandbox.ManifestsOf(p.text)
	if err != nil {
		return &EnvError{err.Error()}
	}
	fmt.Fprintln(p.o.Progress, msg("verify.progress.reset"))
	dyn, err := dynamic.NewForConfig(loaded.Config)
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", kubeerr.Explain(err))}
	}
	if err := sandbox.Reset(ctx, cs, dyn, sandbox.Start{Lab: p.text.ID, Namespaces: p.text.Cluster.Namespaces, Nodes: nodes, Wipe: p.kit.Wipe(), Manifests: manifests}); err != nil {
		return &EnvError{msg("verify.reset_failed", "err", kubeerr.Explain(err))}
	}
	if p.text.Verify.Reset != "" {
		if out, err := p.shell(ctx, p.text.Verify.Reset); err != nil {
			return &EnvError{msg("verify.reset_failed", "err", fmt.Sprintf("%v\n%s", err, out))}
		}
	}
	return nil
}

func (p *prover) startEngine(ctx context.Context) error {
	o := labrun.Options{Lab: p.text, Steps: p.kit.Steps, Scope: p.kit.Scope, Root: p.root, Cluster: labrun.Cluster{Mode: labrun.ClusterNone}}
	switch {
	case p.clusterOK:
		o.Cluster = labrun.Cluster{Mode: labrun.ClusterAuto, Kubeconfig: p.kubeconfigFile}
	case len(p.kit.ClusterSteps()) > 0:
		o.Cluster.Mode = labrun.ClusterOff
	}
	if p.o.Record != "" {
		// The trace names the lab's default root, the path a newcomer
		// sees in the step texts; the files really are under root.
		o.Shown = p.text.DefaultRoot
	}
	run, err := labrun.New(o)
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", err)}
	}
	p.run = run
	if p.o.Record != "" {
		p.recPath = p.o.Record + ".partial"
		if err := run.Record(p.recPath, p.o.Labmate); err != nil {
			return &EnvError{msg("verify.record_failed", "path", p.o.Record, "err", err)}
		}
	}
	p.messages = map[string]bool{}
	run.Tap(p.note)
	p.st = run.Start(ctx)
	return nil
}

func (p *prover) cleanup() {
	if p.run != nil {
		_ = p.run.Stop()
	}
	if p.recPath != "" {
		_ = os.Remove(p.recPath)
	}
	if p.tmp != "" {
		_ = os.RemoveAll(p.tmp)
	}
}

// extract copies a directory of the lab's FS to dir on disk.
func extract(fsys fs.FS, from, dir string) error {
	return fs.WalkDir(fsys, from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, from), "/")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}
