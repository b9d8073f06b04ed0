// Package keys declares every key binding of the TUI as data: one table
// of actions with their default keys, Korean help text and group. The
// short help line, the full help page, the cheat sheet in docs/ and key
// rebinding from the config file are all generated from that table.
package keys

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/labhub/labmate/content"
)

// Group orders actions in the full help.
type Group int

const (
	GroupMove Group = iota
	GroupScroll
	GroupLearn
	GroupApp
	GroupReplay // only while a recorded session is replayed
)

// Groups lists the groups in help order.
var Groups = []Group{GroupMove, GroupScroll, GroupLearn, GroupApp, GroupReplay}

// GroupTitle is the Korean heading of a group.
func GroupTitle(g Group) string {
	names := [...]string{"move", "scroll", "learn", "app", "replay"}
	if int(g) < 0 || int(g) >= len(names) {
		return ""
	}
	return content.Msg("tui.keygroup." + names[g])
}

// Spec declares one action.
type Spec struct {
	Name  string   // config name, e.g. "next"
	Keys  []string // default keys, bubbletea key names
	Label string   // fixed help label; empty: derived from the keys
	Group Group
	// Confirm actions are active only while a question is asked; their
	// keys may repeat keys of other actions.
	Confirm bool
	// Fixed actions cannot be rebound; the help shows their help label
	// (jump: 0-8), not their many keys.
	Fixed bool
	// GiveWay orders what leaves the help line when it is short of room:
	// the enabled hint with the highest GiveWay first; 0 never (the full
	// help, ?, lists everything anyway). The pager's scroll hint stands
	// for down and up.
	GiveWay int
	field   func(*KeyMap) *key.Binding
}

// Desc is the action's Korean help text.
func (s Spec) Desc() string { return content.Msg("tui.key." + s.Name) }

// KeyMap holds every binding. Bindings are enabled and disabled by the
// model for the state on screen, so bubbles/help shows only what works.
type KeyMap struct {
	Next, Prev, Jump, Go                         key.Binding
	Down, Up, PageDown, PageUp, HalfDown, HalfUp key.Binding
	Top, Bottom                                  key.Binding
	Hint, Yes, No, Observed, Copy, Rescan        key.Binding
	MakeRoot                                     key.Binding
	Edit, Compare, Ending, Hand, CatchUp         key.Binding
	Help, Close, Quit                            key.Binding
	Pause, Speed, NextChange                     key.Binding
}

// Specs is the table every binding comes from, in help order.
var Specs = []Spec{
	{Name: "next", Keys: []string{"n", "right", "tab"}, Group: GroupMove, GiveWay: 1, field: func(k *KeyMap) *key.Binding { return &k.Next }},
	{Name: "prev", Keys: []string{"p", "left", "shift+tab"}, Group: GroupMove, GiveWay: 6, field: func(k *KeyMap) *key.Binding { return &k.Prev }},
	{Name: "jump", Keys: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, Group: GroupMove, Fixed: true, GiveWay: 9, field: func(k *KeyMap) *key.Binding { return &k.Jump }},
	{Name: "go", Keys: []string{"enter"}, Group: GroupMove, field: func(k *KeyMap) *key.Binding { return &k.Go }},
	{Name: "down", Keys: []string{"j", "down"}, Group: GroupScroll, GiveWay: 8, field: func(k *KeyMap) *key.Binding { return &k.Down }},
	{Name: "up", Keys: []string{"k", "up"}, Group: GroupScroll, field: func(k *KeyMap) *key.Binding { return &k.Up }},
	{Name: "pagedown", Keys: []string{"pgdown", " ", "f"}, Group: GroupScroll, field: func(k *KeyMap) *key.Binding { return &k.PageDown }},
	{Name: "pageup", Keys: []string{"pgup", "b"}, Group: GroupScroll, field: func(k *KeyMap) *key.Binding { return &k.PageUp }},
	{Name: "halfdown", Keys: []string{"ctrl+d", "d"}, Group: GroupScroll, field: func(k *KeyMap) *key.Binding { return &k.HalfDown }},
	{Name: "halfup", Keys: []string{"ctrl+u", "u"}, Group: GroupScroll, field: func(k *KeyMap) *key.Binding { return &k.HalfUp }},
	{Name: "top", Keys: []string{"g", "home"}, Group: GroupScroll, field: func(k *KeyMap) *key.Binding { return &k.Top }},
	{Name: "bottom", Keys: []string{"G", "end"}, Group: GroupScroll, field: func(k *KeyMap) *key.Binding { return &k.Bottom }},
	{Name: "hint", Keys: []string{"h"}, Group: GroupLearn, GiveWay: 2, field: func(k *KeyMap) *key.Binding { return &k.Hint }},
	{Name: "yes", Keys: []string{"y"}, Group: GroupLearn, Confirm: true, field: func(k *KeyMap) *key.Binding { return &k.Yes }},
	{Name: "no", Keys: []string{"n", "esc"}, Group: GroupLearn, Confirm: true, field: func(k *KeyMap) *key.Binding { return &k.No }},
	{Name: "observed", Keys: []string{"o"}, Group: GroupLearn, GiveWay: 5, field: func(k *KeyMap) *key.Binding { return &k.Observed }},
	{Name: "copy", Keys: []string{"c"}, Group: GroupLearn, GiveWay: 7, field: func(k *KeyMap) *key.Binding { return &k.Copy }},
	{Name: "rescan", Keys: []string{"r"}, Group: GroupLearn, GiveWay: 3, field: func(k *KeyMap) *key.Binding { return &k.Rescan }},
	{Name: "make_root", Keys: []string{"m"}, Group: GroupLearn, field: func(k *KeyMap) *key.Binding { return &k.MakeRoot }},
	{Name: "edit", Keys: []string{"e"}, Group: GroupLearn, GiveWay: 4, field: func(k *KeyMap) *key.Binding { return &k.Edit }},
	{Name: "compare", Keys: []string{"v"}, Group: GroupLearn, GiveWay: 4, field: func(k *KeyMap) *key.Binding { return &k.Compare }},
	{Name: "ending", Keys: []string{"t"}, Group: GroupLearn, GiveWay: 3, field: func(k *KeyMap) *key.Binding { return &k.Ending }},
	{Name: "hand", Keys: []string{"a"}, Group: GroupLearn, GiveWay: 5, field: func(k *KeyMap) *key.Binding { return &k.Hand }},
	{Name: "catch_up", Keys: []string{"C"}, Group: GroupLearn, GiveWay: 5, field: func(k *KeyMap) *key.Binding { return &k.CatchUp }},
	{Name: "help", Keys: []string{"?"}, Group: GroupApp, field: func(k *KeyMap) *key.Binding { return &k.Help }},
	{Name: "close", Keys: []string{"esc"}, Group: GroupApp, GiveWay: 4, field: func(k *KeyMap) *key.Binding { return &k.Close }},
	{Name: "quit", Keys: []string{"q", "ctrl+c"}, Group: GroupApp, field: func(k *KeyMap) *key.Binding { return &k.Quit }},
	{Name: "pause", Keys: []string{"s"}, Group: GroupReplay, field: func(k *KeyMap) *key.Binding { return &k.Pause }},
	{Name: "speed", Keys: []string{"+", "]"}, Group: GroupReplay, field: func(k *KeyMap) *key.Binding { return &k.Speed }},
	{Name: "next_change", Keys: []string{"x"}, Group: GroupReplay, field: func(k *KeyMap) *key.Binding { return &k.NextChange }},
}

// Default returns the key map for a lab with steps steps: the jump keys
// are 0 (introduction) to the last step.
func Default(steps int) KeyMap {
	var k KeyMap
	for _, s := range Specs {
		*s.field(&k) = key.NewBinding(key.WithKeys(s.Keys...), key.WithHelp(label(s.Keys), s.Desc()))
	}
	k.setJump(steps)
	return k
}

// setJump binds the digits that can start a page number: 0 to steps, or
// every digit for a lab of more than nine steps (the TUI reads them as
// one number).
func (k *KeyMap) setJump(steps int) {
	steps = max(0, steps)
	ks := make([]string, 0, 10)
	for i := 0; i <= min(steps, 9); i++ {
		ks = append(ks, fmt.Sprint(i))
	}
	k.Jump.SetKeys(ks...)
	k.Jump.SetHelp(fmt.Sprintf("0-%d", steps), content.Msg("tui.key.jump"))
}

// FullHelp is every action by group, in help order: a column for each of
// Groups (the column's index is the group), each action with all its keys
// (a fixed action by its help label) and its full Korean help, enabled
// whether or not it works now. The full help (?) and the cheat sheet in
// docs/ read it.
func (k KeyMap) FullHelp() [][]key.Binding {
	cols := make([][]key.Binding, len(Groups))
	for _, s := range Specs {
		b := *s.field(&k)
		name := b.Help().Key
		if !s.Fixed {
			shown := make([]string, len(b.Keys()))
			for i, k := range b.Keys() {
				shown[i] = Display(k)
			}
			name = strings.Join(shown, "/")
		}
		b.SetHelp(name, s.Desc())
		b.SetEnabled(true)
		cols[s.Group] = append(cols[s.Group], b)
	}
	return cols
}

// GiveWay is how early binding b leaves the help line when it is short of
// room (Spec.GiveWay): the action enabled now whose keys b has. Two
// actions enabled at once never share a key (Rebind refuses a clash; the
// confirm actions are enabled only while the others are not), so b's keys
// name its action. 0 for a binding of no action.
func (k KeyMap) GiveWay(b key.Binding) int {
	for _, s := range Specs {
		if f := s.field(&k); f.Enabled() && slices.Equal(f.Keys(), b.Keys()) {
			return s.GiveWay
		}
	}
	return 0
}

// Binding returns the binding of the named action.
func (k *KeyMap) Binding(name string) *key.Binding {
	for _, s := range Specs {
		if s.Name == name {
			return s.field(k)
		}
	}
	return nil
}

// Rebind replaces the keys of the named actions (from the config file).
// Unknown actions, empty key lists, fixed actions and keys that would make
// two actions fight are refused with a Korean warning; the action keeps
// its default keys then.
func (k *KeyMap) Rebind(m map[string][]string) []string {
	var warns []string
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		ks := cleanKeys(m[name])
		var spec *Spec
		for i := range Specs {
			if Specs[i].Name == name {
				spec = &Specs[i]
			}
		}
		switch {
		case spec == nil:
			warns = append(warns, content.Msg("tui.config.key_unknown", "action", name, "actions", strings.Join(Names(), ", ")))
			continue
		case spec.Fixed:
			warns = append(warns, content.Msg("tui.config.key_fixed", "action", name))
			continue
		case len(ks) == 0:
			warns = append(warns, content.Msg("tui.config.key_empty", "action", name))
			continue
		}
		if other := k.clash(*spec, ks); other != "" {
			shown := make([]string, len(ks))
			for i, k := range ks {
				shown[i] = Display(k)
			}
			warns = append(warns, content.Msg("tui.config.key_clash", "action", name, "other", other, "keys", strings.Join(shown, ", ")))
			continue
		}
		b := spec.field(k)
		b.SetKeys(ks...)
		b.SetHelp(label(ks), spec.Desc())
	}
	return warns
}

// clash names another action that already answers to one of ks in the
// same state (confirm actions live in their own state).
func (k *KeyMap) clash(s Spec, ks []string) string {
	for _, o := range Specs {
		if o.Name == s.Name || o.Confirm != s.Confirm {
			continue
		}
		for _, have := range o.field(k).Keys() {
			for _, want := range ks {
				if have == want {
					return o.Name
				}
			}
		}
	}
	return ""
}

func cleanKeys(ks []string) []string {
	var out []string
	for _, s := range ks {
		if s == " " || s == "space" {
			out = append(out, " ")
			continue
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Names lists the action names the config file may rebind.
func Names() []string {
	var out []string
	for _, s := range Specs {
		if !s.Fixed {
			out = append(out, s.Name)
		}
	}
	return out
}

// label is how a key list is shown in help: the first key, with names
// that fit one narrow cell (no arrows: they are ambiguous-width).
func label(ks []string) string {
	if len(ks) == 0 {
		return ""
	}
	return Display(ks[0])
}

// Display is the help name of one key.
func Display(k string) string {
	switch k {
	case " ":
		return "space"
	case "pgdown":
		return "pgdn"
	}
	return k
}
