package component

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// Keys hands on a key map as it was taken; Enabled keeps the bindings
// that work, in order.
func TestKeysAndEnabled(t *testing.T) {
	a := key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "가"))
	b := key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "나"), key.WithDisabled())
	c := key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "다"))
	k := Keys{Short: []key.Binding{a, b, c}, Full: [][]key.Binding{{a}, {b, c}}}
	if got := Enabled(k.ShortHelp()...); len(got) != 2 || got[0].Help().Key != "a" || got[1].Help().Key != "c" {
		t.Errorf("Enabled = %v", got)
	}
	if len(k.FullHelp()) != 2 || len(k.FullHelp()[1]) != 2 {
		t.Errorf("FullHelp = %v", k.FullHelp())
	}
}
