package tui

import (
	"context"
	"io"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/terminal"
)

// Prepare settles, before the program starts, everything that must not be
// asked of the terminal while it runs: East-Asian-ambiguous characters
// count as one cell (the chrome uses none, and the renderer's widths and
// ours must agree), and the theme and colour profile are the context's,
// which the command settled from its streams (terminal.NewContext).
func Prepare(opts Options, tc terminal.Context) Options {
	page.NarrowAmbiguous()
	opts.Theme = tc.Theme
	if opts.Colors == ColorsFromTerminal {
		opts.Colors = colorModeOf(tc.Profile)
	}
	return opts
}

// Run shows the TUI on the context's terminal (alternate screen, mouse
// off, cursor hidden) until the learner quits or ctx ends. The terminal
// is restored on every way out: quit, ctx, SIGINT, SIGTERM, SIGHUP (the
// tmux pane was killed) and a panic in the program, which is then
// returned as the error (its value and stack) for the caller to print on
// the restored terminal.
func Run(ctx context.Context, tc terminal.Context, opts Options) error {
	opts = Prepare(opts, tc)
	m := New(opts)
	m.ctx = ctx
	_, err := terminal.Run(ctx, tc, func(w io.Writer) tea.Model {
		m.copier.clip.out = w
		if h, ok := w.(terminal.Handover); ok {
			m.opener.handover = h // the editor gets the terminal through it
		}
		return m
	})
	return err
}
