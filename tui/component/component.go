// Package component is the one shape every part of labmate's screens has,
// as in soft-serve (pkg/ui/common/component.go): a tea.Model that owns
// its size, its keys and their help. A parent lays its components out in
// one pass (SetSize) and builds its help line and help page from their key
// maps (ShortHelp, FullHelp), so a key on screen is a key that works now:
// a component enables and disables its bindings for the state it is in
// (key.Binding.SetEnabled, gum's habit) and bubbles/help leaves the
// disabled ones out.
//
// It is a small package of its own so that the instructor's board
// (tui/board) shares the shape without importing the learner's TUI.
package component

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Component is a part of a screen: a model, its key map and its size.
// SetSize gives it the cells the parent's layout leaves it; a component
// whose height follows from what it shows (a footer) takes the width and
// says how tall it is in its View.
type Component interface {
	tea.Model
	help.KeyMap
	SetSize(width, height int)
}

// Keys is a key map as it is at one moment: what a parent hands a
// component that shows keys (the footer's help line, the help page), so
// that it reads them through help.KeyMap without holding the parent.
type Keys struct {
	Short []key.Binding
	Full  [][]key.Binding
}

// ShortHelp is the help line's keys, in order.
func (k Keys) ShortHelp() []key.Binding { return k.Short }

// FullHelp is the help page's keys, by column.
func (k Keys) FullHelp() [][]key.Binding { return k.Full }

// Enabled keeps the bindings that work now, in order.
func Enabled(bs ...key.Binding) []key.Binding {
	var out []key.Binding
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}
