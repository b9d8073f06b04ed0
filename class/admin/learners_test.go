package admin

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

func TestReadLearners(t *testing.T) {
	got, err := ReadLearners(strings.NewReader("# class A\nana\n\n  bo-2 \n"))
	if err != nil || strings.Join(got, ",") != "ana,bo-2" {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, in := range []string{"Ana\n", "a_b\n", "-a\n", "ana\nana\n", strings.Repeat("a", 41) + "\n", "ana.b\n"} {
		if _, err := ReadLearners(strings.NewReader(in)); err == nil {
			t.Errorf("ReadLearners(%q) accepted", in)
		}
	}
	if got := LearnersFromCount(12); got[0] != "learner-01" || got[11] != "learner-12" {
		t.Fatalf("LearnersFromCount(12) = %v", got)
	}
}
