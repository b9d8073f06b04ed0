package board

import (
	"context"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/tui/terminal"
	"github.com/labhub/labmate/tui/theme"
)

// Run shows the board on the terminal until the instructor quits or ctx
// ends, drawn as the learner's TUI is (idle when no record changes).
// Theme and colour profile are settled before the program starts;
// terminal.Run counts East-Asian-ambiguous characters as one cell, as for the
// TUI.
func Run(ctx context.Context, o Options) error {
	out := os.Stdout
	o.Theme = theme.Resolve(o.Theme, out)
	o.Profile = theme.DetectProfile(out)
	_, err := terminal.Run(ctx, out, func(io.Writer) tea.Model { return New(o) })
	return err
}
