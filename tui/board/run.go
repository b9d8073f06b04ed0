package board

import (
	"context"
	"errors"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/tui/theme"
)

// Run shows the board on the terminal until the instructor quits or ctx
// ends. Theme and colour profile are settled before the program starts,
// as in the learner's TUI.
func Run(ctx context.Context, o Options) error {
	out := os.Stdout
	runewidth.DefaultCondition.EastAsianWidth = false
	o.Theme = theme.Resolve(o.Theme, out)
	o.Profile = theme.DetectProfile(out)
	p := tea.NewProgram(New(o), tea.WithContext(ctx), tea.WithAltScreen(), tea.WithOutput(out), tea.WithFPS(20))
	_, err := p.Run()
	_, _ = io.WriteString(out, "\x1b[?25h")
	if errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrProgramPanic) || errors.Is(err, tea.ErrInterrupted) {
		return nil
	}
	return err
}
