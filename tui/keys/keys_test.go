package keys

import (
	"strings"
	"testing"

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
