// Package action does what a lab's verify.toml says a step's answer is:
// files into a lab root from the lab's reference (copies, writes, edits,
// removals), then a shell script against the lab cluster. `labmate lab
// verify` replays answers with it on a temporary root; `labmate
// catch-up` replays reference solutions with it on the learner's root.
// It is the one way either does an action.
package action

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/syncio"
)

// Doer does actions in one lab root.
type Doer struct {
	// Root is the absolute lab root the action's paths are under (a path
	// cannot leave it).
	Root string
	// Answers is the lab's answers directory on disk (Extract).
	Answers string
	// ScriptDir is where scripts run (Root when empty).
	ScriptDir string
	// Kubeconfig is every script's $KUBECONFIG: a file of one sandbox's
	// context, or one that reaches no cluster. A script never sees the
	// caller's own KUBECONFIG or in-cluster credentials.
	Kubeconfig string
	// BinDir is put first on the scripts' PATH (the sandbox's kubectl).
	BinDir string
	// Timeout bounds one script (none when zero).
	Timeout time.Duration
	// Touch, when set, is called with each lab-relative path (slashed,
	// clean) before the action writes or removes it; an error stops the
	// action before that path changes (catch-up's backup).
	Touch func(rel string) error
	// Exec, when set, wraps how a script runs each program (lab verify
	// notes where a trial's time goes).
	Exec func(interp.ExecHandlerFunc) interp.ExecHandlerFunc
}

// Do does an action: its files in the order the action lists them
// (copies from the answers, writes, edits, removals), then its script,
// whose output it returns. Several edits of one file apply in order,
// cumulatively.
func (d Doer) Do(ctx context.Context, a content.Action) (string, error) {
	for _, f := range a.Files {
		if err := d.copyAnswer(f, 0o644); err != nil {
			return "", err
		}
	}
	for _, f := range a.Executable {
		if err := d.copyAnswer(f, 0o755); err != nil {
			return "", err
		}
	}
	for _, w := range a.Write {
		mode, err := parseMode(w.Mode)
		if err != nil {
			return "", err
		}
		if err := d.writeFile(w.Path, []byte(w.Content), mode); err != nil {
			return "", err
		}
	}
	if err := d.edit(a.Edit); err != nil {
		return "", err
	}
	for _, r := range a.Remove {
		if err := d.touch(r); err != nil {
			return "", err
		}
		if err := os.RemoveAll(d.InRoot(r)); err != nil {
			return "", err
		}
	}
	if strings.TrimSpace(a.Run) == "" {
		return "", nil
	}
	return d.Shell(ctx, a.Run)
}

// Paths are the lab-relative paths an action writes or removes, each
// once, in the order it first does (what Touch will be called with;
// what its script writes is not known before it runs).
func Paths(a content.Action) []string {
	var out []string
	add := func(p string) {
		if p = Clean(p); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, f := range a.Files {
		add(f)
	}
	for _, f := range a.Executable {
		add(f)
	}
	for _, w := range a.Write {
		add(w.Path)
	}
	for _, e := range a.Edit {
		add(e.Path)
	}
	for _, r := range a.Remove {
		add(r)
	}
	return out
}

// Clean is a lab-relative path as the action uses it: slashed, without
// a leading slash or any way out of the root.
func Clean(rel string) string {
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean("/"+filepath.FromSlash(rel))), "/")
}

// edit applies an action's edits. Edits of one file build on each other,
// in order: the first edits the answers' file, each later one what the
// one before made; each file is written once, when all are applied (with
// the mode of its last edit).
func (d Doer) edit(edits []content.Edit) error {
	var order []string
	edited := map[string][]byte{}
	modes := map[string]os.FileMode{}
	for _, e := range edits {
		b, ok := edited[e.Path]
		if !ok {
			var err error
			if b, err = os.ReadFile(filepath.Join(d.Answers, filepath.FromSlash(Clean(e.Path)))); err != nil {
				return errors.New(content.Msg("verify.no_answer", "path", e.Path))
			}
			order = append(order, e.Path)
		}
		if !bytes.Contains(b, []byte(e.Old)) {
			return errors.New(content.Msg("verify.edit_missing", "path", e.Path, "old", e.Old))
		}
		mode, err := parseMode(e.Mode)
		if err != nil {
			return err
		}
		edited[e.Path], modes[e.Path] = bytes.Replace(b, []byte(e.Old), []byte(e.New), 1), mode
	}
	for _, path := range order {
		if err := d.writeFile(path, edited[path], modes[path]); err != nil {
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
		return 0, errors.New(content.Msg("verify.bad_mode", "mode", s))
	}
	return os.FileMode(m), nil
}

// InRoot is a lab-relative path under the root (.. cannot leave it).
func (d Doer) InRoot(rel string) string {
	return filepath.Join(d.Root, filepath.FromSlash(Clean(rel)))
}

func (d Doer) copyAnswer(rel string, mode os.FileMode) error {
	b, err := os.ReadFile(filepath.Join(d.Answers, filepath.FromSlash(Clean(rel))))
	if err != nil {
		return errors.New(content.Msg("verify.no_answer", "path", rel))
	}
	return d.writeFile(rel, b, mode)
}

func (d Doer) touch(rel string) error {
	if d.Touch == nil {
		return nil
	}
	return d.Touch(Clean(rel))
}

// writeFile replaces a lab file the way an editor that saves through a
// temporary file does, so a watcher never reads it half written.
func (d Doer) writeFile(rel string, b []byte, mode os.FileMode) error {
	if err := d.touch(rel); err != nil {
		return err
	}
	dst := d.InRoot(rel)
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

// Shell runs an author's script with mvdan.cc/sh (a POSIX shell in
// labmate itself, so no particular shell is needed on the machine) in
// ScriptDir: $ROOT (ScriptDir) and $ANSWERS set, BinDir first on PATH,
// and $KUBECONFIG always Kubeconfig.
func (d Doer) Shell(ctx context.Context, script string) (string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "verify.sh")
	if err != nil {
		return "", errors.New(content.Msg("verify.bad_script", "err", err))
	}
	var env []string
	for _, kv := range os.Environ() {
		// No in-cluster credentials either.
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "KUBERNETES_SERVICE_") {
			env = append(env, kv)
		}
	}
	dir := d.ScriptDir
	if dir == "" {
		dir = d.Root
	}
	path := os.Getenv("PATH")
	if d.BinDir != "" {
		path = d.BinDir + string(os.PathListSeparator) + path
	}
	env = append(env, "ROOT="+dir, "ANSWERS="+d.Answers, "KUBECONFIG="+d.Kubeconfig, "PATH="+path)
	// A pipeline's commands write it at once (one's stderr, the next
	// one's stdout), each from the goroutine os/exec copies with.
	var out syncio.Buffer
	opts := []interp.RunnerOption{interp.Dir(dir), interp.Env(expand.ListEnviron(env...)), interp.StdIO(nil, &out, &out)}
	if d.Exec != nil {
		opts = append(opts, interp.ExecHandlers(d.Exec))
	}
	r, err := interp.New(opts...)
	if err != nil {
		return "", err
	}
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	if err := r.Run(ctx, f); err != nil {
		return out.String(), &ScriptError{Err: err}
	}
	return out.String(), nil
}

// Tail is the end of a script's output (its last eight lines), for a
// message.
func Tail(out string) string {
	out = strings.TrimSpace(out)
	if lines := strings.Split(out, "\n"); len(lines) > 8 {
		out = strings.Join(lines[len(lines)-8:], "\n")
	}
	return out
}

// ScriptError is a script that ran and failed (an exit status, a timeout),
// as opposed to an action's file that could not be written.
type ScriptError struct{ Err error }

func (e *ScriptError) Error() string { return e.Err.Error() }

func (e *ScriptError) Unwrap() error { return e.Err }

// NoClusterKubeconfig is the $KUBECONFIG of scripts that must reach no
// cluster: its server is under .invalid, a name that never resolves (RFC
// 2606).
const NoClusterKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://no-cluster.labmate-verify.invalid"}}]
contexts: [{name: none, context: {cluster: none}}]
current-context: none
`

// Extract copies a directory of a lab's FS (its answers) to dir on disk.
func Extract(fsys fs.FS, from, dir string) error {
	return fs.WalkDir(fsys, from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, from), "/")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if e.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}
