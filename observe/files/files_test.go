package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/labmate/observe"
)

// watch starts a source and returns a function that waits for the next
// observation of path matching want.
func watch(t *testing.T, root string, paths ...string) func(path string, want func(observe.FileObs) bool) observe.FileObs {
	t.Helper()
	return watchOpts(t, Options{Root: root, Paths: paths, Debounce: 10 * time.Millisecond})
}

func watchOpts(t *testing.T, opts Options) func(path string, want func(observe.FileObs) bool) observe.FileObs {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out := make(chan observe.Observation, 64)
	src := New(opts)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(ctx, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	// Wait for the initial sync (30 s, for a loaded machine; it comes at
	// once when the code is right, as does every observation below).
	deadline := time.After(30 * time.Second)
	for synced := false; !synced; {
		select {
		case o := <-out:
			synced = o.Synced != nil
		case <-deadline:
			t.Fatal("no initial sync")
		}
	}
	return func(path string, want func(observe.FileObs) bool) observe.FileObs {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case o := <-out:
				if o.File != nil && o.File.Path == path && want(*o.File) {
					return *o.File
				}
			case <-deadline:
				t.Fatalf("no matching observation of %s", path)
				return observe.FileObs{}
			}
		}
	}
}

func state(s observe.FileState) func(observe.FileObs) bool {
	return func(f observe.FileObs) bool { return f.State == s }
}

func content(c string) func(observe.FileObs) bool {
	return func(f observe.FileObs) bool { return f.State == observe.FilePresent && string(f.Content) == c }
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSeesFilesAndFoldersCreatedLater(t *testing.T) {
	// The root itself does not exist when watching starts.
	root := filepath.Join(t.TempDir(), "gpuop")
	next := watch(t, root, "etc/runtime/conf.d/99-extra.toml")
	write(t, filepath.Join(root, "etc/runtime/conf.d/99-extra.toml"), "a")
	next("etc/runtime/conf.d/99-extra.toml", content("a"))
}

func TestRenameOnSaveDeleteAndChmod(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "out/merge.txt")
	write(t, p, "one")
	next := watch(t, root, "out/merge.txt")

	// Editors write a temp file and rename it over the original.
	tmp := filepath.Join(root, "out/.merge.txt.swp")
	write(t, tmp, "two")
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	next("out/merge.txt", content("two"))

	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	next("out/merge.txt", func(f observe.FileObs) bool { return f.Mode.Perm() == 0o755 })

	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	next("out/merge.txt", state(observe.FileMissing))

	// The whole directory goes and comes back.
	if err := os.RemoveAll(filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	write(t, p, "three")
	next("out/merge.txt", content("three"))
}

func TestDirectoryWhereFileShouldBe(t *testing.T) {
	root := t.TempDir()
	next := watch(t, root, "out/merge.txt")
	if err := os.MkdirAll(filepath.Join(root, "out/merge.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	next("out/merge.txt", state(observe.FileIsDir))
}

func TestRead(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "small"), "x")
	big := filepath.Join(root, "big")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse 50 MB file: must be reported, not read.
	if err := fh.Truncate(50 << 20); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	secret := filepath.Join(root, "secret")
	write(t, secret, "x")
	if err := os.Chmod(secret, 0); err != nil {
		t.Fatal(err)
	}

	// A FIFO would block a plain open forever; a symlink loop never
	// resolves. Both must read as unreadable, at once.
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("loop-b", filepath.Join(root, "loop-a"))
	os.Symlink("loop-a", filepath.Join(root, "loop-b"))

	cases := []struct {
		path string
		want observe.FileState
	}{
		{"fifo", observe.FileUnreadable},
		{"loop-a", observe.FileUnreadable},
		{"small", observe.FilePresent},
		{"big", observe.FileTooLarge},
		{"nothing/here", observe.FileMissing},
		{".", observe.FileIsDir},
	}
	if os.Geteuid() != 0 { // root reads mode-0 files anyway
		cases = append(cases, struct {
			path string
			want observe.FileState
		}{"secret", observe.FileUnreadable})
	}
	for _, c := range cases {
		got := Read(root, c.path)
		if got.State != c.want {
			t.Errorf("Read(%q) = %s (%s), want %s", c.path, got.State, got.Err, c.want)
		}
		if c.want == observe.FileTooLarge && len(got.Content) != 0 {
			t.Errorf("Read(%q) read %d bytes of a too-large file", c.path, len(got.Content))
		}
	}
}

func TestNoObservationWhenNothingChanged(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "out/merge.txt")
	write(t, p, "same")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan observe.Observation, 64)
	src := New(Options{Root: root, Paths: []string{"out/merge.txt"}, Debounce: 5 * time.Millisecond})
	go src.Run(ctx, out)
	for o := range out {
		if o.Synced != nil {
			break
		}
	}
	// Saving identical bytes (an editor's rename-on-save), touching the
	// file and a rescan fire events but must not produce an observation:
	// checks would rerun for nothing. (A save in place may be read half
	// way, truncated; the engine holds such a read until the file is
	// quiet, see engine/settle.go.)
	write(t, p+".tmp~", "same")
	if err := os.Rename(p+".tmp~", p); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	src.Rescan()
	select {
	case o := <-out:
		t.Fatalf("unexpected observation %+v", o)
	case <-time.After(300 * time.Millisecond):
	}
}

// Tree mode sees every file under the root: one there at the start, one
// made later in a folder made later, and a removal.
func TestTreeSeesFilesMadeLater(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "lab.toml"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, poll := range []bool{false, true} {
		next := watchOpts(t, Options{Root: root, Tree: true, Poll: poll, Debounce: 10 * time.Millisecond, PollInterval: 20 * time.Millisecond})
		dir := filepath.Join(root, fmt.Sprintf("steps-%v", poll))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		rel := filepath.Base(dir) + "/01.md"
		if err := os.WriteFile(filepath.Join(root, rel), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		next(rel, state(observe.FilePresent))
		if err := os.Remove(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
		next(rel, state(observe.FileMissing))
	}
}
