package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/page"
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

// FrameRate is how many frames a second bubbletea's own renderer draws in
// the idle baseline the tests compare the TUI with (tuidemo -bare). That
// renderer's frame ticker runs whether or not anything changed (bubbletea
// v1 has no way to stop it): every labmate program draws through terminal
// (its own frame writer) instead, and is idle when nothing changes.
const FrameRate = 20

// Run shows the TUI on the terminal (alternate screen, mouse off, cursor
// hidden) until the learner quits or ctx ends. The terminal is restored on
// every way out: quit, ctx, SIGINT, SIGTERM, SIGHUP (the tmux pane was
// killed) and a panic in the program, which is then returned as the error
// (its value and stack) for the caller to print on the restored terminal.
func Run(ctx context.Context, opts Options) error {
	out := os.Stdout
	opts = Prepare(opts, out)
	m := New(opts)
	_, err := RunProgram(ctx, out, func(w io.Writer) tea.Model {
		m.copier.clip.out = w
		return m
	})
	return err
}

// RunProgram runs a model on the terminal the way the TUI runs: drawn by
// labmate's own terminal writer (idle when nothing changes), in raw mode,
// told the window's size, ended by SIGHUP as by SIGINT and SIGTERM, the
// terminal restored on every way out; a panic in the model or in one of
// its commands ends the program and is returned as the error. build gets
// the writer that reaches the terminal between frames (the clipboard's
// escape sequence). It returns the model as the program ended (nil if it
// never started). The instructor's board and the lab picker run through
// it too.
func RunProgram(ctx context.Context, out *os.File, build func(w io.Writer) tea.Model) (final tea.Model, err error) {
	page.NarrowAmbiguous()
	scr := newTerminal(out)
	in, restore, err := rawInput()
	if err != nil {
		return nil, err
	}
	defer restore()
	crash := &panicked{}
	p := tea.NewProgram(drawn{build(scr), scr, crash}, tea.WithoutRenderer(), tea.WithContext(ctx), tea.WithOutput(out), tea.WithInput(in))
	scr.start()
	defer scr.stop()
	sized := make(chan struct{})
	defer close(sized)
	sendSizes(p, out, sized)
	defer quitOnHangup(p)()

	defer func() {
		if r := recover(); r != nil {
			// Panics outside the model and its commands (drawn catches
			// those), outside bubbletea's own handlers too.
			p.Kill()
			err = &panicked{r, debug.Stack()}
		}
	}()
	m, err := p.Run()
	if d, ok := m.(drawn); ok {
		final = d.inner
	}
	// terminal.stop (deferred above) leaves the alternate screen and then
	// shows the cursor on the main screen, whose hidden state tmux
	// restores on leaving it.
	return final, endError(err, crash)
}

// quitOnHangup ends p on SIGHUP (pane or terminal gone) the way
// bubbletea ends it on SIGINT and SIGTERM, or the process lingers. stop
// stops listening.
func quitOnHangup(p *tea.Program) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		defer func() { _ = recover() }()
		select {
		case <-hup:
			p.Quit()
			// If the terminal is gone the final frame may never be
			// written; do not wait for it for long.
			select {
			case <-done:
			case <-time.After(time.Second):
				p.Kill()
			}
		case <-done:
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}

// endError is what RunProgram returns for the way the program ended
// (err from Run): a panic it caught, to be printed once the terminal is
// restored (on the alternate screen it would vanish); nothing for an
// orderly end.
func endError(err error, crash *panicked) error {
	switch {
	case crash.value != nil:
		return crash
	case errors.Is(err, tea.ErrProgramPanic):
		// A panic guard did not see, caught by bubbletea, which printed
		// it on the alternate screen: its value is gone, but not the fact.
		return &panicked{value: err}
	case errors.Is(err, tea.ErrProgramKilled), errors.Is(err, tea.ErrInterrupted):
		// ctx ended, SIGHUP or ctrl+c: an orderly end.
		return nil
	}
	return err
}
