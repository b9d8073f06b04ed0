// Package labproof proves every lab of the module through the built
// `labmate lab verify --mutants`, each on a sandbox of its own brought up
// as an author would (`labmate sandbox up --lab ID`).
//
// It is a package of its own, importing none of labmate's lab data, so
// that go test's result cache is keyed on what a proof depends on: the
// test binary does not change when a lab does, and each lab's subtest
// names as its inputs (testbin.BuildFor) that lab's directory and the
// verifier's sources (the packages labkit/verify imports, and the verify
// command). scripts/test.sh runs one go test per lab
// (-run '^TestLabProof$/^ID$'), so a lab's proof reruns when its data or
// the verifier changed, and its cached result stands when only another
// lab, the TUI or the class did.
//
//	LABMATE_E2E=1 go test ./e2e/labproof -run '^TestLabProof$/^gpu-quota$' -v
package labproof

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/internal/dirs"
	"github.com/labhub/labmate/internal/testbin"
	"github.com/labhub/labmate/internal/testslots"
)

// labsDir is the labs' data, read from disk (not through package content,
// which embeds every lab).
const labsDir = "../../content/labs"

// TestLabProof proves each lab in a subtest named by its ID, as many at
// once as there are cluster slots (internal/testslots: one per core; the
// others wait). With more slots than labs, a lab's near-misses are split
// between shards (--mutants-shard K/N, by a hash), each on a sandbox of
// its own; every shard also proves every step's start, solution and
// wrong answers, so a shard is worth it only on a spare slot.
func TestLabProof(t *testing.T) {
	if os.Getenv("LABMATE_E2E") != "1" {
		t.Skip("skipping the lab proofs: set LABMATE_E2E=1 to run them (needs the binaries from scripts/cluster-bins.sh)")
	}
	entries, err := os.ReadDir(labsDir)
	if err != nil {
		t.Fatal(err)
	}
	var labs []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(labsDir, e.Name(), "lab.toml")); e.IsDir() && err == nil {
			labs = append(labs, e.Name())
		}
	}
	if len(labs) == 0 {
		t.Fatalf("no lab under %s", labsDir)
	}
	verifier, err := testbin.ModuleDirs("./labkit/verify")
	if err != nil {
		t.Fatal(err)
	}
	verifier = append(verifier, "cmd/labmate")
	shards := shardsFor(testslots.Count(), len(labs))
	for _, id := range labs {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			bin := testbin.BuildFor(t, "../../cmd/labmate", append(slices.Clone(verifier), "content/labs/"+id+"/...")...)
			for k := 1; k <= shards; k++ {
				t.Run(fmt.Sprintf("shard-%d-of-%d", k, shards), func(t *testing.T) {
					t.Parallel()
					prove(t, bin, id, k, shards)
				})
			}
		})
	}
}

// shardsFor is how many shards each of labs proofs gets with slots
// sandboxes at once: the spare slots shared out, at most three (beyond
// that a shard mostly repeats the lab's other cases).
func shardsFor(slots, labs int) int {
	return min(max(slots/max(labs, 1), 1), 3)
}

// prove brings up a sandbox for the lab (holding a cluster slot), runs
// `labmate lab verify ID --mutants --mutants-shard K/N` on it and requires
// every case of the table to hold. Near-misses the environment kept from
// being tried even after retries ("?" rows, exit 2) are not a verdict on
// the lab: they are logged, not failed.
func prove(t *testing.T, bin, id string, shard, shards int) {
	testslots.Take(t)
	name := fmt.Sprintf("labmate-proof-%s-%d", id, shard)
	state := t.TempDir()
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	t.Cleanup(func() {
		if out, errOut, err := run("sandbox", "down", "--name", name); err != nil {
			t.Errorf("sandbox down %s: %v\n%s\n%s", name, err, out, errOut)
		}
	})
	start := time.Now()
	if out, errOut, err := run("sandbox", "up", "--lab", id, "--name", name, "--state-dir", state); err != nil {
		t.Fatalf("sandbox up --lab %s --name %s: %v\n%s\n%s", id, name, err, out, errOut)
	}
	kubeconfig := dirs.KwokKubeconfig(name)
	if _, err := os.Stat(kubeconfig); err != nil {
		t.Fatalf("the sandbox's kubeconfig is not where package sandbox puts it (sandbox.Kubeconfig): %v", err)
	}
	up := time.Since(start)
	args := []string{"lab", "verify", id, "--mutants", "--mutants-shard", fmt.Sprintf("%d/%d", shard, shards),
		"--kubeconfig", kubeconfig, "--context", "kwok-" + name, "--state-dir", state}
	table, errOut, err := run(args...)
	var exit *exec.ExitError
	unproven := errors.As(err, &exit) && exit.ExitCode() == 2 && strings.Contains(table, "환경 문제로 해 보지 못함")
	if err != nil && !unproven {
		t.Fatalf("labmate %s: %v\n%s\n%s", strings.Join(args, " "), err, table, errOut)
	}
	if strings.Contains(table, "✗") || !unproven && !strings.Contains(table, "모두 성립합니다") {
		t.Errorf("a case did not hold:\n%s", table)
	}
	steps := 0
	for _, line := range strings.Split(table, "\n") {
		switch {
		case strings.HasPrefix(line, "-"):
			t.Errorf("a case was not proven: %s", line)
		case strings.HasPrefix(line, "?"):
			t.Logf("not a verdict (the environment): %s", line)
		}
		if f := strings.Fields(line); len(f) > 2 && f[0] == "✓" && strings.Contains(line, " 참고 풀이 ") {
			if _, err := strconv.Atoi(f[1]); err == nil {
				steps++
			}
		}
	}
	if steps == 0 {
		t.Errorf("no step's solution held:\n%s", table)
	}
	t.Logf("%s: %d steps solved, shard %d/%d of its near-misses killed or declared; sandbox up %s, proof %s",
		id, steps, shard, shards, up.Round(time.Second), (time.Since(start) - up).Round(time.Second))
}
