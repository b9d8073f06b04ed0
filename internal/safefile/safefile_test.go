package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpenNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	regular := filepath.Join(dir, "regular")
	os.WriteFile(regular, []byte("x"), 0o644)

	done := make(chan error, 1)
	go func() {
		f, err := Open(fifo)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("Open(fifo) = %v, want ErrNotRegular", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Open blocked on a FIFO (no answer in 30 s)")
	}
	if _, err := Open(dir); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Open(dir) = %v, want ErrNotRegular", err)
	}
	f, err := Open(regular)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestDirFSOpensFilesAndDirectoriesButNoFIFO(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "steps"), 0o755)
	os.WriteFile(filepath.Join(dir, "steps", "01.md"), []byte("x"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := DirFS(dir)
	if b, err := fs.ReadFile(fsys, "steps/01.md"); err != nil || string(b) != "x" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if es, err := fs.ReadDir(fsys, "."); err != nil || len(es) != 2 {
		t.Errorf("ReadDir = %v, %v", es, err)
	}
	if _, err := fs.ReadFile(fsys, "fifo"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(fifo) = %v, want ErrNotRegular", err)
	}
	if _, err := fsys.Open("../x"); err == nil {
		t.Error("opened a path outside the directory")
	}
}
