package testbin

import (
	"path/filepath"
	"slices"
	"testing"
)

// A program's inputs are what it is built from: its packages and the
// trees they embed, not the rest of the module.
func TestModuleDeps(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	rel := func(dirs []string) []string {
		var out []string
		for _, d := range dirs {
			r, err := filepath.Rel(root, d)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	// go list runs as a child, whose reads the go command does not see:
	// the directories are read here too, as Build does, so that this
	// test's cached result goes when one of them changes.
	labmate, err := moduleDeps("", root, true, "../../cmd/labmate")
	if err != nil {
		t.Fatal(err)
	}
	if err := readDirs(labmate); err != nil {
		t.Fatal(err)
	}
	got := rel(labmate)
	for _, want := range []string{
		"cmd/labmate", "labkit/verify", "content",
		"content/labs", "content/labs/gpu-incident", "content/labs/gpu-incident/steps", // embedded, and the dirs above it
	} {
		if !slices.Contains(got, want) {
			t.Errorf("labmate's inputs lack %s:\n%v", want, got)
		}
	}
	for _, not := range []string{".", "docs", "e2e", "scripts", "internal/testbin"} {
		if slices.Contains(got, not) {
			t.Errorf("labmate's inputs name %s, which it is not built from:\n%v", not, got)
		}
	}
	escape, err := moduleDeps("", root, true, "../../observe/scriptprobe/testdata/escape")
	if err != nil {
		t.Fatal(err)
	}
	if err := readDirs(escape); err != nil {
		t.Fatal(err)
	}
	if got := rel(escape); !slices.Equal(got, []string{"observe/scriptprobe/testdata/escape"}) {
		t.Errorf("the escape helper's inputs: %v, want only its own directory", got)
	}
	// Without embeds (ModuleDirs, a lab proof's inputs) one lab's
	// directory is not every lab's input.
	sources, err := ModuleDirs("./cmd/labmate")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(sources, "content") || slices.Contains(sources, "content/labs/gpu-incident") {
		t.Errorf("ModuleDirs(./cmd/labmate) = %v, want content's directory and not its embedded labs'", sources)
	}
}
