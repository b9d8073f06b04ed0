package board

import (
	"context"
	"io"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/tui/terminal"
)

// Run shows the board on the context's terminal until the instructor
// quits or ctx ends, drawn as the learner's TUI is (idle when no record
// changes), in the theme and colour profile the command settled
// (terminal.NewContext); terminal.Run counts East-Asian-ambiguous
// characters as one cell, as for the TUI.
func Run(ctx context.Context, tc terminal.Context, o Options) error {
	o.Theme, o.Profile = tc.Theme, tc.Profile
	_, err := terminal.Run(ctx, tc, func(io.Writer) tea.Model { return New(o) })
	return err
}
