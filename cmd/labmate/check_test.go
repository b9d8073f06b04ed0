package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
)

// checkJSON runs `labmate check ... --json` and decodes its output.
func checkJSON(t *testing.T, args ...string) (engine.Report, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"check", "--json", "--state-dir", t.TempDir()}, args...), &out, &errb)
	var rep engine.Report
	if code != cli.ExitUsage {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("output is not the check JSON: %v\n%s", err, out.String())
		}
	}
	return rep, code, errb.String()
}

func copyReference(t *testing.T, root string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		src := filepath.Join("..", "..", "content", "labs", "gpu-incident", "reference", rel)
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(src)
		dst := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckExitCodesAndShape(t *testing.T) {
	root := t.TempDir()
	copyReference(t, root, "etc/containerd/config.toml")

	rep, code, _ := checkJSON(t, "--root", root, "--no-cluster", "--step", "1")
	if code != cli.ExitOK || len(rep.Steps) != 1 || rep.Steps[0].Status != checks.Passed {
		t.Fatalf("step 1 with the reference config: exit %d, %+v", code, rep.Steps)
	}
	if rep.Lab != "gpu-incident" || rep.Steps[0].ID != "main-config" || rep.Steps[0].Number != 1 || rep.Steps[0].Title == "" {
		t.Fatalf("JSON shape: %+v", rep)
	}
	for _, c := range rep.Steps[0].Checks {
		if c.ID == "" || c.Status == "" || c.Message == "" {
			t.Fatalf("check without id/status/message: %+v", c)
		}
	}

	rep, code, _ = checkJSON(t, "--root", root, "--no-cluster", "--step", "2")
	if code != cli.ExitFail || rep.Steps[0].Status != checks.Failed {
		t.Fatalf("step 2 without its file: exit %d, %s", code, rep.Steps[0].Status)
	}

	rep, code, _ = checkJSON(t, "--root", root, "--no-cluster")
	if code != cli.ExitFail || len(rep.Steps) != 8 {
		t.Fatalf("all steps: exit %d, %d steps", code, len(rep.Steps))
	}
	// Without a cluster, the cluster steps never pass from nothing.
	for _, st := range rep.Steps[4:] {
		if st.Status == checks.Passed {
			t.Fatalf("step %d passed with no cluster", st.Number)
		}
	}
}

func TestCheckUsageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	// A FIFO where a trace should be must be refused, not block forever.
	fifo := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"--replay", fifo},
		{"--step", "9"},
		{"--step", "-1"},
		{"--root", file},
		{"--no-such-flag"},
		{"stray"},
		{"--replay", "reference", "--watch"},
		{"--replay", filepath.Join(t.TempDir(), "missing.jsonl")},
		{"--replay", filepath.Join("..", "..", "trace", "testdata", "bad", "newer-version.jsonl")},
		{"--replay", filepath.Join("..", "..", "trace", "testdata", "bad", "corrupt-middle.jsonl")},
		{"--kubeconfig", filepath.Join(t.TempDir(), "missing-kubeconfig")},
	}
	for _, args := range cases {
		_, code, stderr := checkJSON(t, args...)
		if code != cli.ExitUsage {
			t.Errorf("check %v: exit %d, want %d", args, code, cli.ExitUsage)
		}
		if strings.TrimSpace(stderr) == "" {
			t.Errorf("check %v: no message on stderr", args)
		}
	}
}

func TestCheckReplayReference(t *testing.T) {
	rep, code, _ := checkJSON(t, "--replay", "reference")
	if code != cli.ExitOK || !rep.AllPassed() || len(rep.Steps) != 8 {
		t.Fatalf("reference replay: exit %d, %+v", code, rep.Steps)
	}
	rep, code, _ = checkJSON(t, "--replay", "reference", "--step", "5")
	if code != cli.ExitOK || len(rep.Steps) != 1 || rep.Steps[0].Number != 5 {
		t.Fatalf("reference replay step 5: exit %d, %+v", code, rep.Steps)
	}
}

// A state dir that cannot be created is a warning, never a failure, and
// is not mistaken for a damaged file.
func TestCheckWithUnusableStateDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, []byte("x"), 0o644)
	root := t.TempDir()
	copyReference(t, root, "etc/containerd/config.toml")
	var out, errb bytes.Buffer
	code := run([]string{"check", "--json", "--no-cluster", "--step", "1", "--root", root, "--state-dir", file}, &out, &errb)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep engine.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	want := strings.SplitN(content.Msg("cli.state_unavailable", "err", "X"), "X", 2)[0]
	found := false
	for _, p := range rep.Problems {
		if strings.HasPrefix(p, want) {
			found = true
		}
		if strings.HasPrefix(p, strings.SplitN(content.Msg("cli.state_damaged", "err", "X"), "X", 2)[0]) {
			t.Errorf("reported as damaged: %s", p)
		}
	}
	if !found {
		t.Errorf("no state warning in %v", rep.Problems)
	}
}
