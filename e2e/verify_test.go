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

// Each lab is proven in shards (--mutants-shard K/N: its near-misses to
// try on the cluster split between them by a hash), each on a sandbox of
// its own, all at once: a proof's time is mostly its cluster trials, each
// a sandbox reset (about 5 s of which is the namespace controller's fixed
// wait), the earlier steps' solutions, the near-miss and its grace, so
// together they take about as long as one shard alone. Every shard also
// proves every step's start, solution and wrong answers. The subtests run
// in goroutines of their own rather than with t.Parallel, whose limit
// (-parallel, GOMAXPROCS by default) would run two at a time on a 2-core
// machine.
func TestLabsVerify(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	var wg sync.WaitGroup
	for _, l := range labtest.Installed(t) {
		for k := 1; k <= shards; k++ {
			wg.Go(func() {
				t.Run(fmt.Sprintf("%s-%d-of-%d", l.ID(), k, shards), func(t *testing.T) { proveLab(t, bin, l.Text, k) })
			})
		}
	}
	wg.Wait()
}

// shards is how many sandboxes prove each lab's near-misses: two, as
// every shard also proves the lab's other cases (gpu-incident's run its
// check script's scenarios in the script sandbox, CPU-bound), which a
// third shard would do once more for each lab; alone, three shards took
// 282 s, under the fresh CI run's load 478 s.
const shards = 2

// proveLab runs `labmate lab verify ID --mutants --mutants-shard
// SHARD/shards` on a sandbox of the test's own, brought up for the lab as
// an author would (`labmate sandbox up --lab ID`), and requires every case
// of the table to hold.
func proveLab(t *testing.T, bin string, lab *content.Lab, shard int) {
	opts := sandboxtest.ForLab(t, lab, fmt.Sprintf("%s-%d", lab.ID, shard))
	start := time.Now()
	args := []string{"lab", "verify", lab.ID, "--mutants", "--mutants-shard", fmt.Sprintf("%d/%d", shard, shards),
		"--kubeconfig", sandbox.Kubeconfig(opts), "--context", sandbox.Context(opts), "--state-dir", t.TempDir()}
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("labmate %s: %v\n%s\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
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
