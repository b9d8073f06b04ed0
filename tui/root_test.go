package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/internal/termtext/termtexttest"
	"github.com/labhub/labmate/labroot"
)

// placeModel is the fixture lab on a lab root as Look sees it.
func placeModel(t *testing.T, w, h int, root string) Model {
	t.Helper()
	return testModel(t, w, h, func(o *Options) {
		o.Root = root
		o.Place = labroot.Look(labroot.Root{Path: root, From: labroot.FromHome, Home: labroot.Home{Dir: filepath.Dir(root)}})
	})
}

// fullHelpHas reports whether the full help (?) lists the make-root key.
func fullHelpHas(m Model) bool {
	for _, col := range m.FullHelp() {
		for _, b := range col {
			if b.Help().Desc == msg("tui.key.make_root") {
				return true
			}
		}
	}
	return false
}

// The first time a lab opens on a root that is not there, the footer
// says where the files go and the help line offers the key that makes
// the directory; the key makes only the directory, once, and then leaves
// the help line and the full help.
func TestMissingRootIsMadeOnTheLearnersKey(t *testing.T) {
	root := filepath.Join(t.TempDir(), "gpuop")
	m := placeModel(t, 60, 20, root)
	checkFits(t, m)
	s := screen(m)
	if !strings.Contains(flat(s), "실습 파일은 ~/gpuop 아래에 둡니다. 아직 없는 디렉터리입니다.") || !strings.Contains(s, "m 디렉터리 만들기") {
		t.Fatalf("the footer does not say where the files go or offer the key:\n%s", s)
	}
	if !fullHelpHas(m) {
		t.Error("the full help does not list the key while it applies")
	}
	if _, err := os.Stat(root); err == nil {
		t.Fatal("the root was made before the learner pressed the key")
	}
	m = press(t, m, "m")
	checkFits(t, m)
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
		t.Fatalf("after the key: %v, %d entries (only the directory)", err, len(entries))
	}
	s = screen(m)
	if !strings.Contains(s, "만들었습니다") || strings.Contains(s, "디렉터리 만들기") || strings.Contains(s, "아직 없는 디렉터리") {
		t.Errorf("after making it:\n%s", s)
	}
	if m.keys.MakeRoot.Enabled() || fullHelpHas(m) {
		t.Error("the key still offered once the root is made")
	}
	if _, cmd := update(m, keyMsg("m")); cmd != nil {
		t.Error("a second press does something")
	}
}

// Where the key does not apply it is in neither help: a root that is
// there, and a replay (no root at all).
func TestMakeRootKeyOnlyWhereItApplies(t *testing.T) {
	for name, m := range map[string]Model{
		"ready":    placeModel(t, 80, 24, t.TempDir()),
		"no place": testModel(t, 80, 24),
	} {
		s := screen(m)
		if strings.Contains(s, "디렉터리 만들기") || strings.Contains(s, "실습 파일은") || fullHelpHas(m) || m.keys.MakeRoot.Enabled() {
			t.Errorf("%s: the key or the note is shown:\n%s", name, s)
		}
		if _, cmd := update(m, keyMsg("m")); cmd != nil {
			t.Errorf("%s: m does something", name)
		}
	}
}

// A root the key cannot make (its parent is not the learner's to write,
// or it is a file) gets the note in the alert's colour and, on the
// introduction, the fixes: no key.
func TestRootTheKeyCannotHelp(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gpuop")
	os.WriteFile(file, nil, 0o644)
	m := testModel(t, 60, 30, func(o *Options) {
		o.Root = file
		o.Place = labroot.Look(labroot.Root{Path: file, From: labroot.FromFlag, Default: filepath.Join(dir, "mine"), Home: labroot.Home{Dir: dir}})
	})
	checkFits(t, m)
	if !strings.Contains(flat(screen(m)), "디렉터리가 아닌 파일이 있습니다") || !m.foot.placeBad {
		t.Errorf("the footer's note:\n%s", screen(m))
	}
	m = press(t, m, "G")
	checkFits(t, m)
	s := flat(screen(m))
	for _, want := range []string{"실습 파일을 둘 곳", "디렉터리가 아닌 파일", "labmate --root ~/mine"} {
		if !strings.Contains(s, want) {
			t.Errorf("the introduction lacks %q:\n%s", want, screen(m))
		}
	}
	if m.keys.MakeRoot.Enabled() || fullHelpHas(m) || strings.Contains(s, "디렉터리 만들기") {
		t.Error("the key is offered for a root it cannot make")
	}
	// The close key takes the note down.
	m = press(t, m, "esc")
	if m.foot.place != "" {
		t.Errorf("esc left the note:\n%s", screen(m))
	}
}

// flat is a screen's words, one space between each: a sentence a pane
// wrapped reads as one.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// Making the root can fail after all (something appeared in its way):
// the note says why, in Korean, with what to do instead.
func TestMakingTheRootFails(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "gpuop")
	m := placeModel(t, 60, 20, root)
	if err := os.WriteFile(root, []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = press(t, m, "m")
	checkFits(t, m)
	s := flat(screen(m))
	if !strings.Contains(s, "만들지 못했습니다") || !strings.Contains(s, "이미 다른 것이 있습니다") || strings.Contains(s, "디렉터리 만들기") {
		t.Errorf("a failed make:\n%s", screen(m))
	}
}

// The root is a path from outside: its escapes are shown, not sent, in
// the note and in what making it said.
func TestRootNoteIsClean(t *testing.T) {
	root := filepath.Join(t.TempDir(), "lab"+termtexttest.Hostile)
	m := placeModel(t, 80, 24, root)
	termtexttest.AssertOnlyStyling(t, m.View())
	m = press(t, m, "m")
	termtexttest.AssertOnlyStyling(t, m.View())
}

// A hint may name a path under the lab root as {{ROOT}}, as pages do.
func TestHintsFillTheRoot(t *testing.T) {
	m := testModel(t, 80, 40, func(o *Options) {
		o.Lab.Steps[0].Hints[0] = "{{ROOT}}/etc/containerd 아래를 보세요"
		o.Root = "/home/learner/gpuop"
	})
	m = press(t, m, "1", "h")
	if s := screen(m); !strings.Contains(s, "/home/learner/gpuop/etc/containerd") || strings.Contains(s, "{{ROOT}}") {
		t.Errorf("hint:\n%s", s)
	}
}
