//go:build unix

package sandboxtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/sandbox"
)

// fatalTB records the first Fatalf or Skipf and ends the calling goroutine,
// as testing.T does, without failing the test that uses it.
type fatalTB struct {
	testing.TB
	stopped string
}

func (f *fatalTB) Helper()                   {}
func (f *fatalTB) Logf(string, ...any)       {}
func (f *fatalTB) Cleanup(func())            {}
func (f *fatalTB) Fatal(args ...any)         { f.stop(fmt.Sprint(args...)) }
func (f *fatalTB) Fatalf(s string, a ...any) { f.stop(fmt.Sprintf(s, a...)) }
func (f *fatalTB) Skipf(s string, a ...any)  { f.stop("skip: " + fmt.Sprintf(s, a...)) }
func (f *fatalTB) stop(msg string) {
	f.stopped = msg
	runtime.Goexit()
}

// run calls fn with a fatalTB in its own goroutine and returns what stopped
// it ("" when fn returned).
func run(t *testing.T, fn func(tb testing.TB)) string {
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(tb)
	}()
	<-done
	return tb.stopped
}

func TestName(t *testing.T) {
	t.Setenv(EnvCluster, "")
	if Name() != DefaultCluster || Options().Name != DefaultCluster {
		t.Errorf("Name() = %q, Options().Name = %q, want %q", Name(), Options().Name, DefaultCluster)
	}
	if DefaultCluster == sandbox.DefaultName {
		t.Fatalf("the e2e cluster's default name is the learner's %q", sandbox.DefaultName)
	}
	t.Setenv(EnvCluster, "other-e2e")
	if Name() != "other-e2e" || sandbox.Kubeconfig(Options()) == sandbox.Kubeconfig(sandbox.Options{}) {
		t.Errorf("with %s=other-e2e: Name() = %q, kubeconfig %q", EnvCluster, Name(), sandbox.Kubeconfig(Options()))
	}
}

// With LABMATE_E2E_CLUSTER naming the learner's cluster, every entry point
// stops before touching a cluster or a lock. The bin dir is empty, so a
// Start that got past the guard would fail on the missing binaries rather
// than create anything.
func TestRefusesTheLearnersCluster(t *testing.T) {
	t.Setenv(EnvE2E, "1")
	t.Setenv(EnvCluster, sandbox.DefaultName)
	t.Setenv(sandbox.EnvBinDir, t.TempDir())
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	for name, fn := range map[string]func(testing.TB){
		"Start":   func(tb testing.TB) { Start(tb) },
		"Client":  func(tb testing.TB) { Client(tb) },
		"LockLab": func(tb testing.TB) { LockLab(tb) },
		"Conn":    func(tb testing.TB) { Conn(tb) },
		"Own":     func(tb testing.TB) { Own(tb, "x") },
	} {
		got := run(t, fn)
		if !strings.Contains(got, EnvCluster+"="+sandbox.DefaultName) || !strings.Contains(got, DefaultCluster) {
			t.Errorf("%s with the learner's name: stopped with %q", name, got)
		}
	}
	if up || startErr != nil {
		t.Errorf("state changed: up %v, startErr %v", up, startErr)
	}
	if entries, _ := os.ReadDir(filepath.Join(cache, "labmate", "sandbox")); len(entries) > 0 {
		t.Errorf("lock files created: %v", entries)
	}
}

// LockLab holds an OS lock under the cache dir for exactly the test's
// duration: another open file description cannot take it meanwhile.
func TestLockLab(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv(EnvCluster, "")
	t.Setenv(EnvE2E, "1")
	path := filepath.Join(cache, "labmate", "sandbox", DefaultCluster+"-lab.lock")
	if LockDir() != filepath.Dir(path) {
		t.Fatalf("LockDir() = %q, want %q", LockDir(), filepath.Dir(path))
	}
	try := func() error {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		unlock, err := lockfile.Lock(ctx, path, lockfile.Options{Shared: true})
		if err == nil {
			unlock()
		}
		return err
	}
	t.Run("held", func(t *testing.T) {
		LockLab(t)
		if err := try(); err == nil {
			t.Error("a shared lock was granted while LockLab held the lab lock")
		}
	})
	if err := try(); err != nil {
		t.Errorf("lab lock still held after the test ended: %v", err)
	}
}
