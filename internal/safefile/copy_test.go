package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A copied lab root comes back exactly: every file with its content and
// mode (a 0600 write, a 0755 script), directories with theirs (a 0500
// one included, written into before its mode is set), empty
// directories, links as links.
func TestCopyTreeKeepsTheRootAsItStood(t *testing.T) {
	src := filepath.Join(t.TempDir(), "root")
	for _, d := range []string{"etc/conf.d", "out/empty", "ro"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]os.FileMode{"etc/conf.d/a.toml": 0o644, "bin.sh": 0o755, "out/secret.txt": 0o600, "ro/kept.txt": 0o644}
	for name, mode := range files {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte(name), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(src, "ro"), 0o500); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("etc/conf.d/a.toml", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	for _, sync := range []bool{false, true} {
		dst := filepath.Join(t.TempDir(), "copy")
		if err := CopyTree(src, dst, sync); err != nil {
			t.Fatal(err)
		}
		for name, mode := range files {
			info, err := os.Stat(filepath.Join(dst, name))
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != mode {
				t.Errorf("%s: mode %v, want %v", name, info.Mode().Perm(), mode)
			}
			if b, _ := os.ReadFile(filepath.Join(dst, name)); string(b) != name {
				t.Errorf("%s: content %q", name, b)
			}
		}
		if info, err := os.Stat(filepath.Join(dst, "ro")); err != nil || info.Mode().Perm() != 0o500 {
			t.Errorf("ro: %v, %v; want a directory of mode 0500", info, err)
		}
		if info, err := os.Stat(filepath.Join(dst, "out/empty")); err != nil || !info.IsDir() {
			t.Errorf("empty directory not kept: %v", err)
		}
		if target, err := os.Readlink(filepath.Join(dst, "link")); err != nil || target != "etc/conf.d/a.toml" {
			t.Errorf("link: %q, %v; want a link to etc/conf.d/a.toml", target, err)
		}
		if err := os.Chmod(filepath.Join(dst, "ro"), 0o700); err != nil { // t.TempDir removes it
			t.Fatal(err)
		}
	}
}

// A file already where the copy would go is never written over, and a
// FIFO is refused without being opened (an open would block).
func TestCopyTreeNeitherOverwritesNorOpensAFIFO(t *testing.T) {
	src := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(src, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(dst, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CopyTree(src, dst, true); !errors.Is(err, fs.ErrExist) {
		t.Errorf("copy over a file: %v, want it refused as existing", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "old" {
		t.Errorf("the file there became %q", b)
	}
	dir := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CopyTree(dir, filepath.Join(t.TempDir(), "copy"), false); err == nil {
		t.Error("a FIFO was copied")
	}
}
