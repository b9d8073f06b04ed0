package verify

import (
	"context"
	"errors"
	"fmt"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit/action"
	"github.com/labhub/labmate/sandbox"
)

// doer does the proof's actions (labkit/action, the one way labmate does
// a verify.toml action): in the session's root, with the answers, the
// sandbox's kubectl first on PATH and $KUBECONFIG always p.kubeconfigFile
// (the sandbox's one context, or without a sandbox a kubeconfig that
// reaches no cluster). verify.toml's reset script runs before the first
// session, when no lab root exists yet: in the proof's temporary
// directory.
func (p *prover) doer() action.Doer {
	binDir := p.o.BinDir
	if binDir == "" {
		binDir = sandbox.Options{}.ResolvedBinDir()
	}
	d := action.Doer{Answers: p.answers, ScriptDir: p.tmp, Kubeconfig: p.kubeconfigFile, BinDir: binDir, Timeout: 3 * p.o.Timeout, Exec: timedExec}
	if p.session != nil {
		d.Root, d.ScriptDir = p.root, p.root
	}
	return d
}

// apply does an action in the session's root.
func (p *prover) apply(ctx context.Context, a content.Action) (string, error) {
	out, err := p.doer().Do(ctx, a)
	return out, p.scriptErr(err)
}

// shell runs an author's script (reset, undo). The script is the lab
// author's; it never reaches a learner's cluster.
func (p *prover) shell(ctx context.Context, script string) (string, error) {
	out, err := p.doer().Shell(ctx, script)
	return out, p.scriptErr(err)
}

// scriptErr says, without a sandbox, that the script's kubectl reached
// no cluster.
func (p *prover) scriptErr(err error) error {
	var script *action.ScriptError
	if errors.As(err, &script) && !p.clusterOK {
		return fmt.Errorf("%w (%s)", err, msg("verify.no_cluster_script"))
	}
	return err
}
