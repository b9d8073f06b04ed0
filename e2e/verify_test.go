package e2e

// Every installed lab proves itself against the sandbox through the real
// `labmate lab verify`: the GPU incident lab's former hand-written walk
// (every step, every wrong turn it took) is its verify.toml now, and the
// second lab, written only with the authoring kit, is proven the same way.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/labtest"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

func TestLabsVerify(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	dyn := sandboxtest.Dynamic(t)
	sandboxtest.LockLab(t)
	bin := buildLabmate(t)
	labs := labtest.Installed(t)
	// The sandbox as the other e2e tests expect it: the GPU lab's nodes,
	// no lab's namespaces, the marker naming no lab (verify refuses a
	// sandbox another lab claimed, and each proof claims it).
	var start sandbox.Start
	for _, l := range labs {
		start.Namespaces = append(start.Namespaces, l.Text.Cluster.Namespaces...)
		start.Wipe = append(start.Wipe, l.Wipe()...)
	}
	start.Nodes = sandboxtest.Options().Nodes
	reset := func(t *testing.T) {
		if err := sandbox.Reset(context.Background(), cs, dyn, start); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { reset(t) })
	for _, l := range labs {
		t.Run(l.ID(), func(t *testing.T) {
			reset(t)
			start := time.Now()
			cmd := exec.Command(bin, "lab", "verify", l.ID(), "--mutants", "--kubeconfig", kubeconfig,
				"--context", sandbox.Context(sandboxtest.Options()), "--state-dir", t.TempDir())
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("labmate lab verify %s: %v\n%s\n%s", l.ID(), err, stdout.String(), stderr.String())
			}
			table := stdout.String()
			if strings.Contains(table, "✗") || !strings.Contains(table, "모두 성립합니다") {
				t.Errorf("a case did not hold:\n%s", table)
			}
			for _, line := range strings.Split(table, "\n") {
				if strings.HasPrefix(line, "-") {
					t.Errorf("a case was not proven: %s", line)
				}
			}
			// Every step's start and solution, and every wrong answer it
			// declares, is a row of that step that held.
			byID := map[string]content.VerifyStep{}
			for _, vs := range l.Text.Verify.Steps {
				byID[vs.ID] = vs
			}
			cases := 0
			for _, st := range l.Text.Steps {
				for _, c := range []string{"시작", "참고 풀이"} {
					if !rowHeld(table, st.Number, c) {
						t.Errorf("step %d: no holding row %q:\n%s", st.Number, c, table)
					}
				}
				// Its near-misses were made and none survived undeclared.
				if _, ok := byID[st.ID]; ok && !rowHeld(table, st.Number, "변이") {
					t.Errorf("step %d: no holding mutants row:\n%s", st.Number, table)
				}
				for _, w := range byID[st.ID].Wrong {
					cases++
					if !rowHeld(table, st.Number, "오답 "+w.Case) {
						t.Errorf("step %d: no holding row for the wrong answer %s:\n%s", st.Number, w.Case, table)
					}
				}
			}
			t.Logf("%s: %d wrong answers refused, every step solved, its near-misses killed or declared, in %s", l.ID(), cases, time.Since(start).Round(time.Second))
		})
	}
}

// rowHeld reports whether the table has a row of step for the case,
// marked as held.
func rowHeld(table string, step int, what string) bool {
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && f[0] == "✓" && f[1] == strconv.Itoa(step) && strings.Contains(line, " "+what+" ") {
			return true
		}
	}
	return false
}

// A lab whose rule is loosened is caught by its own near-misses:
// driver-reboot with trainer-b's toleration rule taken out of its file
// check lets a trainer-b without the toleration through, and `lab
// verify --mutants-step 3` exits 1 naming that survivor.
func TestMutantsCatchALoosenedLabRule(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	sandboxtest.LockLab(t)
	bin := buildLabmate(t)
	dir := filepath.Join(t.TempDir(), "driver-reboot")
	text, err := content.Load("driver-reboot")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, text.FS); err != nil {
		t.Fatal(err)
	}
	labToml := filepath.Join(dir, "lab.toml")
	raw, err := os.ReadFile(labToml)
	if err != nil {
		t.Fatal(err)
	}
	var lab map[string]any
	if err := toml.Unmarshal(raw, &lab); err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, s := range lab["steps"].([]any) {
		step := s.(map[string]any)
		if step["id"] != "reboot" {
			continue
		}
		for _, c := range step["checks"].([]any) {
			check := c.(map[string]any)
			if check["id"] != "file" {
				continue
			}
			var kept []any
			for _, r := range check["rules"].([]any) {
				if r.(map[string]any)["field"] == "spec.tolerations" {
					removed++
					continue
				}
				kept = append(kept, r)
			}
			check["rules"] = kept
		}
	}
	if removed != 1 {
		t.Fatalf("removed %d toleration rules from step 3's file check, want 1 (lab.toml changed?)", removed)
	}
	out, err := toml.Marshal(lab)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labToml, out, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "lab", "verify", dir, "--mutants-step", "3", "--kubeconfig", kubeconfig,
		"--context", sandbox.Context(sandboxtest.Options()), "--state-dir", t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("lab verify of the loosened lab: %v, want exit 1\n%s\n%s", err, stdout.String(), stderr.String())
	}
	survivor := "field k8s/trainer-b.yaml delete spec.tolerations"
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "✗") && strings.Contains(line, "살아남은 변이") && strings.Contains(line, survivor) {
			return
		}
	}
	t.Errorf("no survivor row naming %q:\n%s", survivor, stdout.String())
}
