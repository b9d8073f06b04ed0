package labkittest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/labhub/labmate/internal/testbin"
)

// CopiedLab copies the driver-reboot lab (declarative checks only) to a
// new directory as id at version, for a test to install or change.
func CopiedLab(tb testing.TB, id, version string) string {
	tb.Helper()
	root, err := testbin.ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	src := filepath.Join(root, "content", "labs", "driver-reboot")
	dir := filepath.Join(tb.TempDir(), id)
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		tb.Fatal(err)
	}
	SetLabTOML(tb, dir, `id = "driver-reboot"`, `id = "`+id+`"`)
	SetLabTOML(tb, dir, `version = "1.0.0"`, `version = "`+version+`"`)
	return dir
}

// SetLabTOML replaces the first old in dir's lab.toml with new; a
// lab.toml without old fails the test.
func SetLabTOML(tb testing.TB, dir, old, new string) {
	tb.Helper()
	p := filepath.Join(dir, "lab.toml")
	raw, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(old)) {
		tb.Fatalf("lab.toml has no %q", old)
	}
	if err := os.WriteFile(p, bytes.Replace(raw, []byte(old), []byte(new), 1), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Reference is the directory of a built-in lab's reference answers in
// the module (content/labs/<id>/reference), laid out as a lab root.
func Reference(tb testing.TB, id string) string {
	tb.Helper()
	root, err := testbin.ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(root, "content", "labs", id, "reference")
}

// ReferenceRoot is a new lab root holding a copy of the lab's reference
// answers, their modes kept (a script stays executable); rels, when
// given, are the only files copied.
func ReferenceRoot(tb testing.TB, id string, rels ...string) string {
	tb.Helper()
	src, root := Reference(tb, id), filepath.Join(tb.TempDir(), "root")
	if len(rels) == 0 {
		if err := os.CopyFS(root, os.DirFS(src)); err != nil {
			tb.Fatal(err)
		}
		return root
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, rel := range rels {
		fi, err := os.Stat(filepath.Join(src, rel))
		if err != nil {
			tb.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			tb.Fatal(err)
		}
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(dst, raw, fi.Mode().Perm()); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}
