package tui

import (
	"context"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/terminal"
	"github.com/labhub/labmate/tui/theme"
)

// Prepare settles, before the program starts, everything that must not be
// asked of the terminal while it runs: East-Asian-ambiguous characters
// count as one cell (the chrome uses none, and the renderer's widths and
// ours must agree), "auto" theme asks for the background colour, and the
// colour profile comes from the terminal and NO_COLOR. Run calls it; cmd
// may call it earlier to print what was decided.
func Prepare(opts Options, out *os.File) Options {
	page.NarrowAmbiguous()
	opts.Theme = theme.Resolve(opts.Theme, out)
	if opts.Colors == ColorsFromTerminal {
		opts.Colors = colorModeOf(theme.DetectProfile(out))
	}
	return opts
}

// Run shows the TUI on the terminal (alternate screen, mouse off, cursor
// hidden) until the learner quits or ctx ends. The terminal is restored on
// every way out: quit, ctx, SIGINT, SIGTERM, SIGHUP (the tmux pane was
// killed) and a panic in the program, which is then returned as the error
// (its value and stack) for the caller to print on the restored terminal.
func Run(ctx context.Context, opts Options) error {
	out := os.Stdout
	opts = Prepare(opts, out)
	m := New(opts)
	_, err := terminal.Run(ctx, out, func(w io.Writer) tea.Model {
		m.copier.clip.out = w
		if h, ok := w.(terminal.Handover); ok {
			m.opener.handover = h // the editor gets the terminal through it
		}
		return m
	})
	return err
}
