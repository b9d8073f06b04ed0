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
		case <-time.After(5 * time.Second):
			t.Fatalf("no run after %s", what)
		}
	}
	next("the start")
	// A burst of saves is one run.
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, "lab.toml"), []byte{byte('a' + i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	next("saving lab.toml")
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
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not end with its context")
	}
}
