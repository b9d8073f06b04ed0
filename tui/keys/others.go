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

// Board is the instructor's board's keys: moving in a list (the
// learners' table, the help-first queue) or scrolling a learner's
// detail, opening one learner and back, the sort, the views (tab,
// shift+tab and 1-4: the learners, help first, the funnel, the steps),
// every key (?) and leaving. Move only shows j/k on the help line for
// Up and Down.
type Board struct {
	Move, Up, Down, PageUp, PageDown, Top, Bottom, Open, Back, Sort, Next, Prev, Help, Quit key.Binding
	// Ack acknowledges the raised hand of the learner chosen (under the
	// help-first queue's cursor, or whose detail is open).
	Ack   key.Binding
	Views [4]key.Binding
}

// NewBoard returns the board's keys. Each shows the letter of its keys
// (j, k, g), not an arrow: the arrows are East-Asian-ambiguous, drawn two
// cells wide by some terminals.
func NewBoard() Board {
	k := func(help, shown string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(shown, content.Msg("class.board.key."+help)))
	}
	return Board{
		Move:     k("move", "j/k", "up", "down", "k", "j"),
		Up:       k("up", "k", "up", "k"),
		Down:     k("down", "j", "down", "j"),
		PageUp:   k("pageup", "pgup", "pgup", "b"),
		PageDown: k("pagedown", "pgdn", "pgdown", " ", "f"),
		Top:      k("top", "g", "g", "home"),
		Bottom:   k("bottom", "G", "G", "end"),
		Open:     k("open", "enter", "enter"),
		Back:     k("back", "esc", "esc", "backspace"),
		Sort:     k("sort", "s", "s"),
		Next:     k("next", "tab", "tab"),
		Prev:     k("prev", "shift+tab", "shift+tab"),
		Help:     k("help", "?", "?"),
		Quit:     k("quit", "q", "q", "ctrl+c"),
		Ack:      k("ack", "a", "a"),
		Views:    [4]key.Binding{k("view1", "1", "1"), k("view2", "2", "2"), k("view3", "3", "3"), k("view4", "4", "4")},
	}
}
