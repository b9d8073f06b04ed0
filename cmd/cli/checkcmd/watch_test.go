package checkcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labrun/textout"
)

// watching is `labmate check --watch ARGS...` running on tf until the
// test ends: its stdout as it writes it; stop ends it and returns its
// exit code.
func watching(t *testing.T, tf *clitest.TestFactory, args ...string) (lines *clitest.Buffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		c, _, _ := tf.RunContext(ctx, NewCmd, append([]string{"--watch"}, args...)...)
		code <- c
	}()
	t.Cleanup(cancel)
	// The run's streams exist once it started.
	deadline := time.Now().Add(clitest.Patience)
	for tf.Stdout() == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return tf.Stdout(), func() int {
		cancel()
		select {
		case c := <-code:
			return c
		case <-time.After(clitest.Patience):
			t.Fatalf("check --watch did not return within %v of its context's end", clitest.Patience)
			return -1
		}
	}
}

// quiet asserts that nothing more is written during window.
func quiet(t *testing.T, b *clitest.Buffer, have int, window time.Duration) {
	t.Helper()
	time.Sleep(window)
	if got := b.Lines(); len(got) != have {
		t.Fatalf("%d new line(s) while no status changed:\n%s", len(got)-have, strings.Join(got[have:], "\n"))
	}
}

// The real lab's step 1 under `labmate check --watch --json`: the
// reference config passes, a string where a boolean belongs turns it red
// in exactly one new line; the command ends with 0 when its context
// does.
func TestWatchRealLabFileStep(t *testing.T) {
	if labkittest.GPUSteps(t)[0].Eval == nil {
		t.Fatal("the file checks of step 1 are not registered")
	}
	root := labkittest.ReferenceRoot(t, "gpu-incident", "etc/containerd/config.toml")
	cfg := filepath.Join(root, "etc", "containerd", "config.toml")
	ref, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tf := clitest.NewTestFactory(t)
	// Every source syncs long before the ready timeout; were one not
	// to, the not-ready first record would come after it, with a status
	// the missing source had no say in: the first record must therefore
	// be a ready one.
	lines, stop := watching(t, tf, "--json", "--root", root, "--no-cluster", "--timeout", clitest.Patience.String())
	first := clitest.Record(t, lines.WaitLines(t, 1)[0])
	if !first.Ready {
		t.Fatalf("the first record is not ready (a source did not sync within %v): %+v", clitest.Patience, first.Report)
	}
	if st := first.Step(1); st == nil || st.Status != checks.Passed {
		t.Fatalf("step 1 with the reference config: %+v", st)
	}
	quiet(t, lines, 1, 1500*time.Millisecond)

	clitest.Save(t, cfg, strings.Replace(string(ref), "SystemdCgroup = true", `SystemdCgroup = "true"`, 1))
	rec := clitest.Record(t, lines.WaitLines(t, 2)[1])
	if len(rec.Changed) != 1 || rec.Changed[0] != (textout.Change{Number: 1, From: checks.Passed, To: checks.Failed}) {
		t.Fatalf("changed = %+v, want only step 1 passed->failed", rec.Changed)
	}
	quiet(t, lines, 2, 1500*time.Millisecond)
	if code := stop(); code != cli.ExitOK {
		_, errOut := tf.Output()
		t.Errorf("exit %d\n%s", code, errOut)
	}
}
