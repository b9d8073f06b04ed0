package verify

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox"
)

// apply does an action: its files in the order the action lists them
// (copies from the answers, writes, edits, removals), then its script.
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
	for _, e := range a.Edit {
		b, err := os.ReadFile(filepath.Join(p.answers, filepath.FromSlash(e.Path)))
		if err != nil {
			return "", errors.New(msg("verify.no_answer", "path", e.Path))
		}
		if !bytes.Contains(b, []byte(e.Old)) {
			return "", errors.New(msg("verify.edit_missing", "path", e.Path, "old", e.Old))
		}
		mode, err := parseMode(e.Mode)
		if err != nil {
			return "", err
		}
		if err := p.writeFile(e.Path, bytes.Replace(b, []byte(e.Old), []byte(e.New), 1), mode); err != nil {
			return "", err
		}
	}
	for _, r := range a.Remove {
		if err := os.RemoveAll(p.inRoot(r)); err != nil {
			return "", err
		}
	}
	if strings.TrimSpace(a.Run) == "" {
		return "", nil
	}
	if !p.clusterOK && p.o.NoCluster && strings.Contains(a.Run, "kubectl") {
		return "", errors.New(msg("verify.no_kubectl"))
	}
	return p.shell(ctx, a.Run)
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
// the machine): $ROOT and $ANSWERS set, $KUBECONFIG the sandbox's one
// context only, the sandbox's kubectl first on PATH. The script is the
// lab author's, run against the sandbox, never against a learner's
// cluster.
func (p *prover) shell(ctx context.Context, script string) (string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "verify.sh")
	if err != nil {
		return "", errors.New(msg("verify.bad_script", "err", err))
	}
	env := os.Environ()
	binDir := p.o.BinDir
	if binDir == "" {
		binDir = sandbox.Options{}.ResolvedBinDir()
	}
	env = append(env, "ROOT="+p.root, "ANSWERS="+p.answers, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if p.kubeconfigFile != "" {
		env = append(env, "KUBECONFIG="+p.kubeconfigFile)
	}
	var out bytes.Buffer
	r, err := interp.New(interp.Dir(p.root), interp.Env(expand.ListEnviron(env...)), interp.StdIO(nil, &out, &out))
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*p.o.Timeout)
	defer cancel()
	if err := r.Run(ctx, f); err != nil {
		return out.String(), err
	}
	return out.String(), nil
}

// resetCluster brings the sandbox back to the lab's start: its namespaces
// deleted (and gone), every RuntimeClass deleted (cluster-wide objects
// labs create), its nodes as the topology says.
func resetCluster(ctx context.Context, cs kubernetes.Interface, text *content.Lab, nodes []sandbox.NodeSpec) error {
	// Pods go first and at once (grace period 0, as kubectl delete
	// --force): a namespace waits for its pods, and kwok would take each
	// one's grace period.
	now := metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}
	for _, ns := range text.Cluster.Namespaces {
		if err := cs.CoreV1().Pods(ns).DeleteCollection(ctx, now, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	rcs, err := cs.NodeV1().RuntimeClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, rc := range rcs.Items {
		if err := cs.NodeV1().RuntimeClasses().Delete(ctx, rc.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if err := sandbox.Reset(ctx, cs, text.ID, nodes); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, ns := range text.Cluster.Namespaces {
			if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
}

func ptr[T any](v T) *T { return &v }
