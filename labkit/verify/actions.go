package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox"
)

// apply does an action: its files in the order the action lists them
// (copies from the answers, writes, edits, removals), then its script.
// Several edits of one file apply in order, cumulatively.
func (p *prover) apply(ctx context.Context, a content.Action) (string, error) {
	for _, f := range a.Files {
		if err := p.copyAnswer(f, 0o644); err != nil {
			return "", err
		}
	}
	for _, f := range a.Executable {
		if err := p.copyAnswer(f, 0o755); err != nil {
			return "", err
		}
	}
	for _, w := range a.Write {
		mode, err := parseMode(w.Mode)
		if err != nil {
			return "", err
		}
		if err := p.writeFile(w.Path, []byte(w.Content), mode); err != nil {
			return "", err
		}
	}
	if err := p.edit(a.Edit); err != nil {
		return "", err
	}
	for _, r := range a.Remove {
		if err := os.RemoveAll(p.inRoot(r)); err != nil {
			return "", err
		}
	}
	if strings.TrimSpace(a.Run) == "" {
		return "", nil
	}
	return p.shell(ctx, a.Run)
}

// edit applies an action's edits. Edits of one file build on each other,
// in order: the first edits the answers' file, each later one what the
// one before made; each file is written once, when all are applied (with
// the mode of its last edit).
func (p *prover) edit(edits []content.Edit) error {
	var order []string
	edited := map[string][]byte{}
	modes := map[string]os.FileMode{}
	for _, e := range edits {
		b, ok := edited[e.Path]
		if !ok {
			var err error
			if b, err = os.ReadFile(filepath.Join(p.answers, filepath.FromSlash(e.Path))); err != nil {
				return errors.New(msg("verify.no_answer", "path", e.Path))
			}
			order = append(order, e.Path)
		}
		if !bytes.Contains(b, []byte(e.Old)) {
			return errors.New(msg("verify.edit_missing", "path", e.Path, "old", e.Old))
		}
		mode, err := parseMode(e.Mode)
		if err != nil {
			return err
		}
		edited[e.Path], modes[e.Path] = bytes.Replace(b, []byte(e.Old), []byte(e.New), 1), mode
	}
	for _, path := range order {
		if err := p.writeFile(path, edited[path], modes[path]); err != nil {
			return err
		}
	}
	return nil
}

func parseMode(s string) (os.FileMode, error) {
	if s == "" {
		return 0o644, nil
	}
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, errors.New(msg("verify.bad_mode", "mode", s))
	}
	return os.FileMode(m), nil
}

// inRoot is a lab-relative path under the proof's root (.. cannot leave
// it).
func (p *prover) inRoot(rel string) string {
	clean := filepath.Clean("/" + filepath.FromSlash(rel))
	return filepath.Join(p.root, clean)
}

func (p *prover) copyAnswer(rel string, mode os.FileMode) error {
	b, err := os.ReadFile(filepath.Join(p.answers, filepath.FromSlash(rel)))
	if err != nil {
		return errors.New(msg("verify.no_answer", "path", rel))
	}
	return p.writeFile(rel, b, mode)
}

// writeFile replaces a lab file the way an editor that saves through a
// temporary file does, so the watcher never reads it half written.
func (p *prover) writeFile(rel string, b []byte, mode os.FileMode) error {
	dst := p.inRoot(rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp := dst + ".labmate-verify"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// shell runs an author's script in the lab root with mvdan.cc/sh (a
// POSIX shell in labmate itself, so verify needs no particular shell on
// the machine): $ROOT and $ANSWERS set, the sandbox's kubectl first on
// PATH, and $KUBECONFIG always p.kubeconfigFile: the sandbox's one
// context, or without a sandbox a kubeconfig that reaches no cluster. The
// script is the lab author's; it never reaches a learner's cluster.
func (p *prover) shell(ctx context.Context, script string) (string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "verify.sh")
	if err != nil {
		return "", errors.New(msg("verify.bad_script", "err", err))
	}
	var env []string
	for _, kv := range os.Environ() {
		// No in-cluster credentials either.
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "KUBERNETES_SERVICE_") {
			env = append(env, kv)
		}
	}
	binDir := p.o.BinDir
	if binDir == "" {
		binDir = sandbox.Options{}.ResolvedBinDir()
	}
	// verify.toml's reset script runs before the first session, when no
	// lab root exists yet: it runs in the proof's temporary directory.
	dir := p.tmp
	if p.session != nil {
		dir = p.root
	}
	env = append(env, "ROOT="+dir, "ANSWERS="+p.answers, "KUBECONFIG="+p.kubeconfigFile,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	r, err := interp.New(interp.Dir(dir), interp.Env(expand.ListEnviron(env...)), interp.StdIO(nil, &out, &out),
		interp.ExecHandlers(timedExec))
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*p.o.Timeout)
	defer cancel()
	if err := r.Run(ctx, f); err != nil {
		if !p.clusterOK {
			err = fmt.Errorf("%w (%s)", err, msg("verify.no_cluster_script"))
		}
		return out.String(), err
	}
	return out.String(), nil
}
