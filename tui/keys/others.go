package keys

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"

	"github.com/labhub/labmate/content"
)

// Picker is the lab picker's keys: the cursor, the lab under it, a lab by
// its number, and leaving. They are few and fixed (the config file rebinds
// the TUI's keys, not these).
type Picker struct {
	Up, Down, Open, Pick, Quit key.Binding
}

// NewPicker returns the picker's keys for a list of labs labs long: a
// digit opens that lab of the list at once.
func NewPicker(labs int) Picker {
	k := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, content.Msg("tui.picker.key."+desc)))
	}
	var digits []string
	for i := 1; i <= min(labs, 9); i++ {
		digits = append(digits, fmt.Sprint(i))
	}
	return Picker{
		Up:   k("k", "move", "up", "k"),
		Down: k("j", "move", "down", "j"),
		Open: k("enter", "open", "enter"),
		Pick: k(fmt.Sprintf("1-%d", labs), "pick", digits...),
		Quit: k("q", "quit", "q", "esc", "ctrl+c"),
	}
}

// Board is the instructor's board's keys: moving in the learners' table,
// opening one learner and back, the sort, the views (tab, shift+tab and
// 1-4: the learners, help first, the funnel, the steps) and leaving.
type Board struct {
	Up, Down, Top, Bottom, Open, Back, Sort, Next, Prev, Quit key.Binding
	// Ack acknowledges the first raised hand not yet acknowledged.
	Ack   key.Binding
	Views [4]key.Binding
}

// NewBoard returns the board's keys.
func NewBoard() Board {
	k := func(help string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], content.Msg("class.board.key."+help)))
	}
	return Board{
		Up:     k("up", "up", "k"),
		Down:   k("down", "down", "j"),
		Top:    k("top", "g", "home"),
		Bottom: k("bottom", "G", "end"),
		Open:   k("open", "enter"),
		Back:   k("back", "esc", "backspace"),
		Sort:   k("sort", "s"),
		Next:   k("next", "tab"),
		Prev:   k("prev", "shift+tab"),
		Quit:   k("quit", "q", "ctrl+c"),
		Ack:    k("ack", "a"),
		Views:  [4]key.Binding{k("view", "1"), k("view", "2"), k("view", "3"), k("view", "4")},
	}
}
