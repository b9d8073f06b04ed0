package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/labmate/cmd/cli/clitest"
)

// waitLines waits until at least n lines were written.
// patience is the least time a test waits for what must come: a wait
// that is met returns at once, so a long one costs nothing when the code
// is right, and a loaded 2-core machine (the whole suite, or two burning
// loops beside it) still meets it. Callers' shorter windows say what they
// expect; they are raised to this.
const patience = 30 * time.Second

// The real command in a child process: `labmate check --watch --json`
// prints its first record and exits 0 on SIGINT and on SIGTERM.
func TestWatchExitsCleanlyOnSignals(t *testing.T) {
	if args := os.Getenv("LABMATE_TEST_RUN_ARGS"); args != "" {
		os.Exit(run(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			root := t.TempDir()
			args := []string{"check", "--watch", "--json", "--root", root, "--no-cluster", "--state-dir", t.TempDir()}
			cmd := exec.Command(os.Args[0], "-test.run=^TestWatchExitsCleanlyOnSignals$")
			cmd.Env = append(os.Environ(), "LABMATE_TEST_RUN_ARGS="+strings.Join(args, "\x1f"))
			stdout, _ := cmd.StdoutPipe()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			first := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				sc.Buffer(make([]byte, 1<<20), 1<<20)
				if sc.Scan() {
					first <- sc.Text()
				}
				for sc.Scan() {
				}
			}()
			select {
			case line := <-first:
				if rec := clitest.Record(t, line); len(rec.Steps) != 8 {
					t.Errorf("first record has %d steps", len(rec.Steps))
				}
			case <-time.After(patience):
				cmd.Process.Kill()
				t.Fatalf("no first record within %v; stderr: %s", patience, stderr.String())
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("exit after %v: %v; stderr: %s", sig, err, stderr.String())
				}
			case <-time.After(patience):
				cmd.Process.Kill()
				t.Fatalf("still running %v after %v", patience, sig)
			}
		})
	}
}
