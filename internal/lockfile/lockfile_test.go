package lockfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLockExcludesAndShares(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	unlock, err := Lock(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	waited := 0
	if _, err := Lock(ctx, path, Options{Shared: true, Waiting: func() { waited++ }}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("shared while exclusive held: %v", err)
	}
	if waited != 1 {
		t.Errorf("Waiting called %d times, want 1", waited)
	}
	unlock()
	a, err := Lock(context.Background(), path, Options{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Lock(context.Background(), path, Options{Shared: true})
	if err != nil {
		t.Fatalf("two shared holders: %v", err)
	}
	a()
	b()
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.md")
	os.WriteFile(path, []byte("old"), 0o600)
	if err := WriteAtomic(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(raw) != "new" || fi.Mode().Perm() != 0o644 {
		t.Errorf("content %q perm %v", raw, fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
	if err := WriteAtomic(filepath.Join(dir, "absent", "x"), nil, 0o644); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// Slot lets n holders in at once, and the next waits until one leaves.
func TestSlotCountsHolders(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	a, err := Slot(ctx, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Slot(ctx, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := Slot(short, dir, 2); err == nil {
		t.Fatal("a third holder got one of two slots")
	}
	a()
	c, err := Slot(ctx, dir, 2)
	if err != nil {
		t.Fatalf("a freed slot was not taken: %v", err)
	}
	b()
	c()
}
