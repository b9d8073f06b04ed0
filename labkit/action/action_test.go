package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

func doer(t *testing.T) Doer {
	t.Helper()
	dir := t.TempDir()
	d := Doer{Root: filepath.Join(dir, "root"), Answers: filepath.Join(dir, "answers"), Kubeconfig: filepath.Join(dir, "kc")}
	for rel, body := range map[string]string{"etc/a.toml": "x = 1\ny = 2\n", "bin/run.sh": "echo hi\n"} {
		p := filepath.Join(d.Answers, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(d.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// Every path an action writes or removes is shown to Touch before it
// changes, in the action's order, and stays under the root.
func TestDoShowsEachPathBeforeItChanges(t *testing.T) {
	d := doer(t)
	if err := os.WriteFile(filepath.Join(d.Root, "old.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var touched []string
	d.Touch = func(rel string) error {
		touched = append(touched, rel)
		if _, err := os.Stat(filepath.Join(d.Root, rel)); rel == "old.txt" && err != nil {
			t.Errorf("old.txt gone before Touch saw it: %v", err)
		}
		return nil
	}
	a := content.Action{
		Files:      []string{"../../etc/a.toml"},
		Executable: []string{"bin/run.sh"},
		Write:      []content.WriteFile{{Path: "out/r.txt", Content: "R=1\n"}},
		Edit:       []content.Edit{{Path: "etc/a.toml", Old: "x = 1", New: "x = 3"}, {Path: "etc/a.toml", Old: "y = 2", New: "y = 4"}},
		Remove:     []string{"old.txt"},
	}
	if _, err := d.Do(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	want := []string{"etc/a.toml", "bin/run.sh", "out/r.txt", "etc/a.toml", "old.txt"}
	if !slices.Equal(touched, want) {
		t.Errorf("touched %v, want %v", touched, want)
	}
	if got := Paths(a); !slices.Equal(got, []string{"etc/a.toml", "bin/run.sh", "out/r.txt", "old.txt"}) {
		t.Errorf("Paths = %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(d.Root, "etc/a.toml")); string(b) != "x = 3\ny = 4\n" {
		t.Errorf("edits not cumulative: %q", b)
	}
	if fi, err := os.Stat(filepath.Join(d.Root, "bin/run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("executable: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(d.Root, "old.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old.txt not removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(d.Root), "etc")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a path with .. left the root")
	}

	// A Touch that refuses stops the action before the path changes.
	d.Touch = func(rel string) error { return errors.New("no") }
	if _, err := d.Do(context.Background(), content.Action{Write: []content.WriteFile{{Path: "out/r.txt", Content: "R=2\n"}}}); err == nil {
		t.Fatal("a refused Touch did not stop the action")
	}
	if b, _ := os.ReadFile(filepath.Join(d.Root, "out/r.txt")); string(b) != "R=1\n" {
		t.Errorf("refused path changed: %q", b)
	}
}

// A script gets the Doer's kubeconfig, never the caller's, runs in the
// root, and a failing one is a ScriptError.
func TestShellGetsOnlyItsKubeconfig(t *testing.T) {
	d := doer(t)
	t.Setenv("KUBECONFIG", "/the/learners/own")
	out, err := d.Shell(context.Background(), `echo "$KUBECONFIG"; pwd; echo "$ANSWERS"`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || lines[0] != d.Kubeconfig || lines[1] != d.Root || lines[2] != d.Answers {
		t.Errorf("script saw %q", lines)
	}
	_, err = d.Shell(context.Background(), "exit 3")
	var se *ScriptError
	if !errors.As(err, &se) {
		t.Errorf("failing script: %v, want a ScriptError", err)
	}
	if _, err := d.Shell(context.Background(), "if then"); err == nil || errors.As(err, &se) {
		t.Errorf("unparsable script: %v, want a parse error, not a ScriptError", err)
	}
}

// The commands of a pipeline write the script's output at once (the
// first one's stderr, the last one's stdout), each through a goroutine
// of os/exec: every line arrives, and under the race detector (this
// package is one of scripts/test.sh's race_pkgs) the writes are
// synchronized.
func TestShellPipelineOutput(t *testing.T) {
	dir := t.TempDir()
	d := Doer{Root: dir, ScriptDir: dir, Kubeconfig: filepath.Join(dir, "kc")}
	out, err := d.Shell(context.Background(), `for i in 1 2 3; do sh -c "echo err$i >&2" | sh -c 'cat; echo out'; done`)
	if err != nil {
		t.Fatalf("Shell: %v\n%s", err, out)
	}
	for _, want := range []string{"err1", "err2", "err3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
	if n := strings.Count(out, "out\n"); n != 3 {
		t.Errorf("output %q has %d lines out, want 3", out, n)
	}
}
