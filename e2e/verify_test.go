package e2e

// The mutation proof catches a loosened rule. Every lab's own proof runs
// in e2e/labproof, a package of its own so that go test's cache reruns a
// lab's proof only when its data or the verifier changed.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// A lab whose rule is loosened is caught by its own near-misses:
// driver-reboot with trainer-b's toleration rule taken out of its file
// check lets a trainer-b without the toleration through, and `lab
// verify --mutants-step 3` exits 1 naming that survivor.
//
// It runs on a sandbox of its own, in one of the machine-wide cluster
// slots, and its near-misses on a second one the proof makes (--lanes 2)
// and deletes: the survivor is found whichever sandbox tried it.
func TestMutantsCatchALoosenedLabRule(t *testing.T) {
	t.Parallel()
	text, err := content.Load("driver-reboot")
	if err != nil {
		t.Fatal(err)
	}
	opts := sandboxtest.ForLab(t, text, "loosened")
	bin := buildLabmate(t)
	dir := filepath.Join(t.TempDir(), "driver-reboot")
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
	log := filepath.Join(t.TempDir(), "verify.log")
	cmd := exec.Command(bin, "lab", "verify", dir, "--mutants-step", "3", "--lanes", "2", "--log", log,
		"--kubeconfig", sandbox.Kubeconfig(opts), "--context", sandbox.Context(opts), "--state-dir", t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("lab verify of the loosened lab: %v, want exit 1\n%s\n%s", err, stdout.String(), stderr.String())
	}
	// Both sandboxes tried near-misses, and the proof's own is gone.
	trials, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, lane := range []string{"lane=1", "lane=2"} {
		if !bytes.Contains(trials, []byte(lane)) {
			t.Errorf("no trial on %s in the proof's log:\n%s", lane, trials)
		}
	}
	lane := sandbox.Options{Name: "labmate-verify-driver-reboot-2"}
	if _, err := os.Stat(sandbox.Kubeconfig(lane)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the proof's second sandbox is still there after it: %s (%v)", sandbox.Kubeconfig(lane), err)
	}
	survivor := "field k8s/trainer-b.yaml delete spec.tolerations"
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "✗") && strings.Contains(line, "살아남은 변이") && strings.Contains(line, survivor) {
			return
		}
	}
	t.Errorf("no survivor row naming %q:\n%s", survivor, stdout.String())
}
