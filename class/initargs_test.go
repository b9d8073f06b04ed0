package class

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

// --learners is a count or a file of names; what it cannot be is said in
// Korean, naming the file and line.
func TestLearners(t *testing.T) {
	if got, err := Learners("3"); err != nil || !slices.Equal(got, []string{"learner-01", "learner-02", "learner-03"}) {
		t.Errorf("3: %v %v", got, err)
	}
	file := filepath.Join(t.TempDir(), "learners.txt")
	if err := os.WriteFile(file, []byte("kim\nlee\nkim\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{
		"":     content.Msg("class.cli.learners_missing"),
		"0":    content.Msg("class.cli.learners_range", "n", 0),
		"1001": content.Msg("class.cli.learners_range", "n", 1001),
		file:   content.Msg("class.cli.learner_dup", "path", file, "line", 3, "name", "kim"),
	} {
		if got, err := Learners(spec); err == nil || err.Error() != want {
			t.Errorf("%q: %v %v, want %q", spec, got, err, want)
		}
	}
}

// --lab: none is every built-in lab, several must each be built in, and
// what is neither is refused in Korean, naming it.
func TestLabs(t *testing.T) {
	if ids, ship, err := Labs(nil); err != nil || ship != nil || !slices.Equal(ids, content.IDs()) {
		t.Errorf("none: %v %v %v", ids, ship, err)
	}
	if ids, ship, err := Labs(content.IDs()); err != nil || ship != nil || !slices.Equal(ids, content.IDs()) {
		t.Errorf("all built in: %v %v %v", ids, ship, err)
	}
	want := content.Msg("class.cli.labs_builtin", "lab", "no-such-lab")
	if _, _, err := Labs([]string{content.IDs()[0], "no-such-lab"}); err == nil || err.Error() != want {
		t.Errorf("several with an unknown one: %v, want %q", err, want)
	}
	if _, _, err := Labs([]string{"no-such-lab"}); err == nil || !strings.HasPrefix(err.Error(), strings.SplitN(content.Msg("class.cli.lab_refused", "lab", "no-such-lab", "err", "X"), "X", 2)[0]) {
		t.Errorf("one unknown: %v", err)
	}
}
