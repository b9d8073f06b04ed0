package keys

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/content"
)

func TestEveryActionHasKoreanHelp(t *testing.T) {
	k := Default(8)
	names := map[string]bool{}
	for _, s := range Specs {
		if names[s.Name] {
			t.Errorf("action %s declared twice", s.Name)
		}
		names[s.Name] = true
		for _, key := range []string{"tui.key." + s.Name} {
			if !content.HasMsg(key) {
				t.Errorf("no text %s", key)
			}
		}
		b := k.Binding(s.Name)
		if b == nil || len(b.Keys()) == 0 {
			t.Errorf("%s has no keys", s.Name)
		}
		// Help labels stay one cell per character in every terminal.
		for _, r := range b.Help().Key {
			if runewidth.IsAmbiguousWidth(r) || ansi.StringWidth(string(r)) != 1 {
				t.Errorf("%s help label %q has %q", s.Name, b.Help().Key, r)
			}
		}
	}
	for _, g := range Groups {
		if GroupTitle(g) == "" || strings.HasPrefix(GroupTitle(g), "tui.") {
			t.Errorf("group %d has no title", g)
		}
	}
	if k.Jump.Help().Key != "0-8" || len(k.Jump.Keys()) != 9 {
		t.Errorf("jump: %q %v", k.Jump.Help().Key, k.Jump.Keys())
	}
}

// Outside the confirmation question, no key does two things.
func TestDefaultsDoNotClash(t *testing.T) {
	k := Default(8)
	owner := map[bool]map[string]string{true: {}, false: {}}
	for _, s := range Specs {
		for _, key := range k.Binding(s.Name).Keys() {
			if o, dup := owner[s.Confirm][key]; dup {
				t.Errorf("%q is bound to %s and %s", key, o, s.Name)
			}
			owner[s.Confirm][key] = s.Name
		}
	}
}

func TestRebind(t *testing.T) {
	k := Default(8)
	warns := k.Rebind(map[string][]string{
		"next":  {"l", " "}, // ok; " " is taken by pagedown: refused
		"hint":  {"?"},      // clashes with help
		"bogus": {"x"},      // unknown
		"jump":  {"a"},      // fixed
		"quit":  {"", "  "}, // empty
		"copy":  {"Y"},      // ok
	})
	if len(warns) != 5 {
		t.Fatalf("warnings = %d, want 5:\n%s", len(warns), strings.Join(warns, "\n"))
	}
	for _, w := range warns {
		if !strings.Contains(w, "설정 파일") {
			t.Errorf("warning not in Korean: %q", w)
		}
	}
	if got := k.Next.Keys(); strings.Join(got, ",") != "n,right,tab" {
		t.Errorf("next kept %v after a clash, want the defaults", got)
	}
	if got := k.Hint.Keys(); strings.Join(got, ",") != "h" {
		t.Errorf("hint = %v", got)
	}
	if got := k.Quit.Keys(); strings.Join(got, ",") != "q,ctrl+c" {
		t.Errorf("quit = %v", got)
	}
	if got := k.Copy.Keys(); strings.Join(got, ",") != "Y" || k.Copy.Help().Key != "Y" {
		t.Errorf("copy = %q label %q", got, k.Copy.Help().Key)
	}
	// A key freed by one rebinding may not be taken by clash detection
	// against stale defaults: rebinding two actions onto each other's keys
	// in one go is refused for the second, never applied half.
	k2 := Default(8)
	if w := k2.Rebind(map[string][]string{"observed": {"r"}}); len(w) != 1 {
		t.Errorf("observed onto rescan's key: %v", w)
	}
}

// The replay actions are their own group, so the full help and the cheat
// sheet can set them apart; speed answers to + and to ] (no shift needed).
func TestReplayActions(t *testing.T) {
	k := Default(8)
	for name, want := range map[string]string{"pause": "s", "speed": "+,]", "next_change": "x"} {
		b := k.Binding(name)
		if b == nil {
			t.Fatalf("no action %s", name)
		}
		if got := strings.Join(b.Keys(), ","); got != want {
			t.Errorf("%s keys = %s, want %s", name, got, want)
		}
		for _, s := range Specs {
			if s.Name == name && s.Group != GroupReplay {
				t.Errorf("%s is in group %d, not the replay group", name, s.Group)
			}
		}
	}
	if w := k.Rebind(map[string][]string{"next_change": {"n"}}); len(w) != 1 {
		t.Errorf("next_change onto next's key: %v", w)
	}
}

// The full help lists every action once, in its group's column, with all
// its keys (jump by its label) and its full Korean help, and shows it
// whether or not it works at this moment.
func TestFullHelpIsTheTable(t *testing.T) {
	k := Default(8)
	k.Next.SetEnabled(false)
	cols := k.FullHelp()
	if len(cols) != len(Groups) {
		t.Fatalf("%d columns for %d groups", len(cols), len(Groups))
	}
	n := 0
	for _, s := range Specs {
		col := cols[s.Group]
		var found bool
		for _, b := range col {
			if b.Help().Desc == s.Desc() {
				found = true
				if !b.Enabled() {
					t.Errorf("%s is not shown in the full help", s.Name)
				}
				want := strings.Join(displayAll(k.Binding(s.Name).Keys()), "/")
				if s.Fixed {
					want = k.Binding(s.Name).Help().Key
				}
				if b.Help().Key != want {
					t.Errorf("%s is named %q in the full help, want %q", s.Name, b.Help().Key, want)
				}
			}
		}
		if !found {
			t.Errorf("%s is not in the column of its group", s.Name)
		}
		n++
	}
	total := 0
	for _, c := range cols {
		total += len(c)
	}
	if total != n {
		t.Errorf("the full help lists %d bindings for %d actions", total, n)
	}
}

func displayAll(ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = Display(k)
	}
	return out
}

// A binding on the help line gives way as its action says: found by its
// keys among the actions enabled now, so a confirm action and a normal
// one rebound to the same keys are told apart by which works now; a
// binding of no action never gives way.
func TestGiveWayFindsTheAction(t *testing.T) {
	k := Default(8)
	if g := k.GiveWay(k.Jump); g != 9 {
		t.Errorf("jump gives way at %d, want 9", g)
	}
	scroll := k.Down
	scroll.SetHelp("j/k", "스크롤")
	if g := k.GiveWay(scroll); g != 8 {
		t.Errorf("the pager's scroll hint gives way at %d, want down's 8", g)
	}
	if warns := k.Rebind(map[string][]string{"no": {"n", "right", "tab"}}); len(warns) != 0 {
		t.Fatalf("rebinding no to next's keys: %q", warns)
	}
	k.No.SetEnabled(false) // no question asked: next works
	if g := k.GiveWay(k.Next); g != 1 {
		t.Errorf("next gives way at %d, want 1", g)
	}
	k.Next.SetEnabled(false)
	k.No.SetEnabled(true) // the question is up: no works
	if g := k.GiveWay(k.No); g != 0 {
		t.Errorf("no gives way at %d while asking, want 0", g)
	}
	if g := k.GiveWay(key.NewBinding(key.WithKeys("F13"))); g != 0 {
		t.Errorf("a binding of no action gives way at %d", g)
	}
}

// The picker's and the board's keys have their Korean help.
func TestPickerAndBoardKeysHaveKoreanHelp(t *testing.T) {
	p, b := NewPicker(3), NewBoard()
	all := []key.Binding{p.Up, p.Down, p.Open, p.Pick, p.Quit, b.Move, b.Up, b.Down, b.PageUp, b.PageDown, b.Top, b.Bottom, b.Open, b.Back, b.Sort,
		b.Next, b.Prev, b.Help, b.Quit}
	all = append(all, b.Views[:]...)
	for _, k := range all {
		if d := k.Help().Desc; d == "" || strings.Contains(d, ".key.") {
			t.Errorf("%v: help %q", k.Keys(), d)
		}
	}
	// The board's help line names keys by their letters: never a key's
	// name ("up") where the key is a letter too, never an ambiguous
	// arrow glyph.
	for _, k := range all[5:] {
		if h := k.Help().Key; h == "up" || h == "down" || strings.ContainsAny(h, "↑↓←→") {
			t.Errorf("%v: shown as %q", k.Keys(), h)
		}
	}
	if got := p.Pick.Help().Key; got != "1-3" {
		t.Errorf("the picker's digits are labelled %q", got)
	}
	if got := NewPicker(12).Pick.Keys(); len(got) != 9 {
		t.Errorf("a list of 12 labs opens by %d digits, want 1 to 9", len(got))
	}
}
