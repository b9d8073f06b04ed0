package e2e

// Every installed lab proves itself against the sandbox through the real
// `labmate lab verify`: the GPU incident lab's former hand-written walk
// (every step, every wrong turn it took) is its verify.toml now, and the
// second lab, written only with the authoring kit, is proven the same way.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/labtest"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// Each lab is proven on a sandbox of its own (sandboxtest.ForLab), as
// many at once as the machine carries (sandboxtest.Slots: one per core;
// the others wait for a slot). A proof's time is mostly its cluster
// trials, each a sandbox reset (about 5 s of which is the namespace
// controller's fixed wait), the earlier steps' solutions, the near-miss
// and its grace. With more slots than labs, each lab's near-misses are
// split between shards (--mutants-shard K/N, by a hash) on sandboxes of
// their own; every shard also proves every step's start, solution and
// wrong answers, so a shard is worth it only on a spare slot. The
// subtests run in goroutines of their own rather than with t.Parallel,
// whose limit (-parallel, GOMAXPROCS by default) knows nothing of the
// slots other test binaries hold.
func TestLabsVerify(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	labs := labtest.Installed(t)
	shards := shardsFor(sandboxtest.Slots(), len(labs))
	var wg sync.WaitGroup
	for _, l := range labs {
		for k := 1; k <= shards; k++ {
			wg.Go(func() {
				t.Run(fmt.Sprintf("%s-%d-of-%d", l.ID(), k, shards), func(t *testing.T) { proveLab(t, bin, l.Text, k, shards) })
			})
		}
	}
	wg.Wait()
}

// shardsFor is how many shards each of labs proofs gets with slots
// sandboxes at once: the spare slots shared out, at most three (beyond
// that a shard mostly repeats the lab's other cases).
func shardsFor(slots, labs int) int {
	return min(max(slots/max(labs, 1), 1), 3)
}

// proveLab runs `labmate lab verify ID --mutants --mutants-shard
// SHARD/shards` on a sandbox of the test's own, brought up for the lab as
// an author would (`labmate sandbox up --lab ID`), and requires every case
// of the table to hold.
func proveLab(t *testing.T, bin string, lab *content.Lab, shard, shards int) {
	opts := sandboxtest.ForLab(t, lab, fmt.Sprintf("%s-%d", lab.ID, shard))
	start := time.Now()
	args := []string{"lab", "verify", lab.ID, "--mutants", "--mutants-shard", fmt.Sprintf("%d/%d", shard, shards),
		"--kubeconfig", sandbox.Kubeconfig(opts), "--context", sandbox.Context(opts), "--state-dir", t.TempDir()}
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Exit 2 after a table is "could not prove": near-misses the
	// environment kept from being tried even after retries (a loaded
	// machine), each a "?" row. They are not a verdict on the lab, so
	// they are logged, not failed; everything else must hold.
	err := cmd.Run()
	table := stdout.String()
	var exit *exec.ExitError
	unproven := errors.As(err, &exit) && exit.ExitCode() == 2 && strings.Contains(table, "환경 문제로 해 보지 못함")
	if err != nil && !unproven {
		t.Fatalf("labmate %s: %v\n%s\n%s", strings.Join(args, " "), err, table, stderr.String())
	}
	if strings.Contains(table, "✗") || !unproven && !strings.Contains(table, "모두 성립합니다") {
		t.Errorf("a case did not hold:\n%s", table)
	}
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "-") {
			t.Errorf("a case was not proven: %s", line)
		}
		if strings.HasPrefix(line, "?") {
			t.Logf("not a verdict (the environment): %s", line)
		}
	}
	// Every step's start and solution, and every wrong answer it
	// declares, is a row of that step that held.
	byID := map[string]content.VerifyStep{}
	for _, vs := range lab.Verify.Steps {
		byID[vs.ID] = vs
	}
	cases := 0
	for _, st := range lab.Steps {
		for _, c := range []string{"시작", "참고 풀이"} {
			if !rowHeld(table, st.Number, c) {
				t.Errorf("step %d: no holding row %q:\n%s", st.Number, c, table)
			}
		}
		// Its near-misses were made and none survived undeclared.
		_, declared := byID[st.ID]
		if declared && !rowHeld(table, st.Number, "변이") {
			t.Errorf("step %d: no holding mutants row:\n%s", st.Number, table)
		}
		for _, w := range byID[st.ID].Wrong {
			cases++
			if !rowHeld(table, st.Number, "오답 "+w.Case) {
				t.Errorf("step %d: no holding row for the wrong answer %s:\n%s", st.Number, w.Case, table)
			}
		}
	}
	t.Logf("%s: %d wrong answers refused, every step solved, shard %d/%d of its near-misses killed or declared, in %s",
		lab.ID, cases, shard, shards, time.Since(start).Round(time.Second))
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
//
// It runs beside TestLabsVerify (both t.Parallel), on a sandbox of its own.
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
	cmd := exec.Command(bin, "lab", "verify", dir, "--mutants-step", "3", "--kubeconfig", sandbox.Kubeconfig(opts),
		"--context", sandbox.Context(opts), "--state-dir", t.TempDir())
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
