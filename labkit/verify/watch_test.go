package verify

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Watch proves once at the start, then once per settled burst of saves,
// also in a subdirectory made after the watch began, and ends with ctx.
func TestWatchRerunsOnSave(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	runs := make(chan struct{}, 10)
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, dir, func() { runs <- struct{}{} }) }()
	next := func(what string) {
		t.Helper()
		select {
		case <-runs:
		case <-time.After(30 * time.Second):
			t.Fatalf("no run within 30 s after %s", what)
		}
	}
	// more counts the runs that come until none came for a while.
	more := func() (n int) {
		for {
			select {
			case <-runs:
				n++
			case <-time.After(600 * time.Millisecond):
				return n
			}
		}
	}
	next("the start")
	// A burst of saves is one run: the run waits until the saves have
	// been quiet for 300 ms. A writer the scheduler stalled that long
	// between two saves made two bursts, and two runs are then right, so
	// the count is held to one only for saves made well within that; three
	// saves are at most three bursts, whatever the stalls.
	begin := time.Now()
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, "lab.toml"), []byte{byte('a' + i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	burst := time.Since(begin)
	next("saving lab.toml")
	if n := more(); n > 2 {
		t.Fatalf("three saves ran %d times", n+1)
	} else if n > 0 && burst < 100*time.Millisecond {
		t.Fatalf("a burst of saves made within %v ran %d more time(s)", burst, n)
	} else if n > 0 {
		t.Logf("saves stalled over %v ran %d more time(s)", burst, n)
	}
	// An empty folder changes no file of the lab; a file saved in it does.
	if err := os.MkdirAll(filepath.Join(dir, "steps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "steps", "01.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	next("saving steps/01.md")
	select {
	case <-runs:
		t.Fatal("a run with nothing changed")
	case <-time.After(600 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Watch did not end within 30 s of its context")
	}
}
