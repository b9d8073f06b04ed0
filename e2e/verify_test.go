package e2e

// Every installed lab proves itself against the sandbox through the real
// `labmate lab verify`: the GPU incident lab's former hand-written walk
// (every step, every wrong turn it took) is its verify.toml now, and the
// second lab, written only with the authoring kit, is proven the same way.

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

func TestLabsVerify(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	sandboxtest.LockLab(t)
	bin := buildLabmate(t)
	labs := labkit.Installed()
	if len(labs) < 2 {
		t.Fatalf("%d labs installed; the GPU incident lab and the driver-reboot lab must be", len(labs))
	}
	// The sandbox as the other e2e tests expect it: the GPU lab's nodes,
	// no lab's namespaces, the marker naming no lab (verify refuses a
	// sandbox another lab claimed, and each proof claims it).
	var namespaces []string
	for _, l := range labs {
		namespaces = append(namespaces, l.Text.Cluster.Namespaces...)
	}
	reset := func(t *testing.T) {
		if err := sandbox.Reset(context.Background(), cs, sandbox.Start{Namespaces: namespaces, Nodes: sandboxtest.Options().Nodes}); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { reset(t) })
	for _, l := range labs {
		t.Run(l.ID(), func(t *testing.T) {
			reset(t)
			start := time.Now()
			cmd := exec.Command(bin, "lab", "verify", l.ID(), "--kubeconfig", kubeconfig,
				"--context", sandbox.Context(sandboxtest.Options()), "--state-dir", t.TempDir())
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("labmate lab verify %s: %v\n%s\n%s", l.ID(), err, stdout.String(), stderr.String())
			}
			table := stdout.String()
			if strings.Contains(table, "✗") {
				t.Errorf("a case did not hold:\n%s", table)
			}
			// Every step's solution and every declared wrong answer is a
			// row that held.
			cases := 0
			for _, vs := range l.Text.Verify.Steps {
				for _, w := range vs.Wrong {
					cases++
					if !rowHeld(table, "오답 "+w.Case) {
						t.Errorf("no holding row for the wrong answer %s:\n%s", w.Case, table)
					}
				}
			}
			if n := strings.Count(table, "✓") - 1; n < cases+2*len(l.Text.Steps) {
				t.Errorf("%d rows held, fewer than the %d wrong answers and %d steps declare", n, cases, len(l.Text.Steps))
			}
			t.Logf("%s: %d wrong answers refused, every step solved, in %s", l.ID(), cases, time.Since(start).Round(time.Second))
		})
	}
}

// rowHeld reports whether the table has a row for the case marked as held.
func rowHeld(table, what string) bool {
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "✓") && strings.Contains(line, " "+what+" ") {
			return true
		}
	}
	return false
}
