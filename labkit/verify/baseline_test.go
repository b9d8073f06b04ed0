package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
)

// A kept lab root comes back exactly: every file with its content and
// mode (a 0600 write, a 0755 script), empty directories, links as links.
func TestCopyTreeKeepsTheRootAsItStood(t *testing.T) {
	src := filepath.Join(t.TempDir(), "root")
	for _, d := range []string{"etc/conf.d", "out/empty"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]os.FileMode{"etc/conf.d/a.toml": 0o644, "bin.sh": 0o755, "out/secret.txt": 0o600}
	for name, mode := range files {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte(name), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("etc/conf.d/a.toml", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := copyTree(src, dst); err != nil {
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
	if info, err := os.Stat(filepath.Join(dst, "out/empty")); err != nil || !info.IsDir() {
		t.Errorf("empty directory not kept: %v", err)
	}
	if target, err := os.Readlink(filepath.Join(dst, "link")); err != nil || target != "etc/conf.d/a.toml" {
		t.Errorf("link: %q, %v; want a link to etc/conf.d/a.toml", target, err)
	}
}

// A resumed run is used only when it shows every step and check as the
// kept one did.
func TestSameShownComparesEveryStepAndCheck(t *testing.T) {
	rep := func(second checks.Status) engine.Report {
		return engine.Report{Steps: []engine.StepResult{
			{Number: 1, Status: checks.Passed, Checks: []checks.Result{{ID: "a.x", Status: checks.Passed}}},
			{Number: 2, Status: checks.Failed, Checks: []checks.Result{{ID: "b.x", Status: checks.Passed}, {ID: "b.y", Status: second}}},
		}}
	}
	if !sameShown(shownOf(rep(checks.Failed)), shownOf(rep(checks.Failed))) {
		t.Error("the same report is not shown the same")
	}
	if sameShown(shownOf(rep(checks.Failed)), shownOf(rep(checks.Waiting))) {
		t.Error("a check failed in one and waiting in the other is shown the same")
	}
}

// What a resumed run remembers is its own copy: a fact it learns does
// not reach the kept baseline.
func TestCloneWitnessIsACopy(t *testing.T) {
	kept := checks.Witness{Facts: map[string]checks.WitnessFact{"1/seen": {Value: "x"}}}
	c := cloneWitness(kept)
	c.Set("2/seen", checks.WitnessFact{Value: "y"})
	if _, ok := kept.Get("2/seen"); ok {
		t.Error("a fact set on the copy reached the kept memory")
	}
}
