// Package terminal runs a bubbletea model on the terminal the way every
// labmate program runs (the learner's TUI, the lab picker, the
// instructor's board): drawn by its own frame writer, which draws only
// when the view changed, so a program is idle when nothing changes; in raw
// mode, told the window's size; ended by SIGHUP as by SIGINT and SIGTERM;
// the terminal restored on every way out, a panic in the model or in one
// of its commands returned as the error.
package terminal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
)

// screen draws a program's frames itself, when the view changes and only
// then. bubbletea v1's renderer redraws on a ticker (FrameRate times a
// second, whether or not anything changed, with no way to stop it): twenty
// wakeups a second is the whole of an idle TUI's CPU. Here the program
// runs with tea.WithoutRenderer; after every Update the new view is handed
// to a goroutine that sleeps until there is one, draws the lines that
// changed, and draws at most once per frameGap so a burst costs one frame.
// A key press is drawn as soon as it is handled.
type screen struct {
	out io.Writer
	mu  sync.Mutex // guards out (the clipboard writes through Write too) and the fields below

	view          string // the newest view, not yet drawn when dirty
	dirty, resize bool
	last          []string // the lines on the terminal
	width, height int      // the window's, from the last WindowSizeMsg
	lastDraw      time.Time

	wake chan struct{} // one slot: a view is waiting
	done chan struct{}
	gone chan struct{}

	// handedOver is true while another program has the terminal (Exec):
	// nothing is drawn. tty and cooked are the input terminal and its
	// mode before labmate made it raw, given back for that time.
	handedOver bool
	tty        *os.File
	cooked     *term.State
}

// frameGap is the least time between two frames (60 a second at most).
const frameGap = time.Second / 60

func newScreen(out io.Writer) *screen {
	return &screen{out: out, wake: make(chan struct{}, 1), done: make(chan struct{}), gone: make(chan struct{})}
}

// start takes the terminal: the alternate terminal, cleared, cursor hidden,
// bracketed paste on (a paste arrives as one message, not as keys).
func (s *screen) start() {
	s.mu.Lock()
	_, _ = io.WriteString(s.out, "\x1b[?1049h\x1b[2J\x1b[H\x1b[?25l\x1b[?2004h")
	s.mu.Unlock()
	go s.loop()
}

// stop ends the drawing goroutine and gives the terminal back: bracketed
// paste off, the cursor shown, the main terminal.
func (s *screen) stop() {
	close(s.done)
	<-s.gone
	s.mu.Lock()
	_, _ = io.WriteString(s.out, "\x1b[?2004l\x1b[?1049l\x1b[?25h")
	s.mu.Unlock()
}

// submit hands over the newest view; full asks for the whole terminal to be
// drawn again (after a resize).
func (s *screen) submit(view string, full bool) {
	s.mu.Lock()
	if view == s.view && !full && !s.dirty {
		s.mu.Unlock()
		return
	}
	s.view, s.dirty = view, true
	s.resize = s.resize || full
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Write lets the clipboard's escape sequence reach the terminal between
// frames, never inside one.
func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

// Exec runs cmd on the terminal, as tea.ExecProcess does for a program
// with bubbletea's own renderer (which labmate's programs do not run):
// the frames stop and the terminal is given back as it was before the
// program (the main screen, the cursor shown, bracketed paste off, the
// input's own mode), cmd runs with it, and then the program takes it
// again and draws its whole screen. bubbletea stops reading keys while
// cmd runs. fn turns how cmd ended into the message the model gets. A
// model reaches Exec through the writer Run's build is given
// (Handover).
func (s *screen) Exec(cmd *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	return tea.Exec(&handover{s: s, cmd: cmd}, fn)
}

// Handover is what the writer a model is built with (Run's build) does
// besides writing between frames: hand the terminal to another program.
type Handover interface {
	Exec(cmd *exec.Cmd, fn tea.ExecCallback) tea.Cmd
}

// handover is cmd run with the terminal given over (tea.ExecCommand).
type handover struct {
	s   *screen
	cmd *exec.Cmd
}

func (h *handover) SetStdin(r io.Reader) {
	if h.cmd.Stdin == nil {
		h.cmd.Stdin = r
	}
}

// SetStdout also sets the command's stderr: the process's own stderr goes
// to a log while the TUI runs, and an editor's words belong on screen.
func (h *handover) SetStdout(w io.Writer) {
	if h.cmd.Stdout == nil {
		h.cmd.Stdout = h.s.out
	}
	if h.cmd.Stderr == nil {
		h.cmd.Stderr = h.s.out
	}
}

func (h *handover) SetStderr(io.Writer) {}

func (h *handover) Run() error {
	h.s.release()
	defer h.s.retake()
	return h.cmd.Run()
}

// release gives the terminal away: no frame is drawn until retake.
func (s *screen) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handedOver = true
	_, _ = io.WriteString(s.out, "\x1b[?2004l\x1b[?1049l\x1b[?25h")
	if s.tty != nil && s.cooked != nil {
		_ = term.Restore(int(s.tty.Fd()), s.cooked)
	}
}

// retake takes the terminal back and draws the whole screen again.
func (s *screen) retake() {
	s.mu.Lock()
	if s.tty != nil {
		_, _ = term.MakeRaw(int(s.tty.Fd()))
	}
	_, _ = io.WriteString(s.out, "\x1b[?1049h\x1b[2J\x1b[H\x1b[?25l\x1b[?2004h")
	s.handedOver = false
	s.dirty, s.resize, s.last = true, true, nil
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *screen) loop() {
	defer close(s.gone)
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		s.mu.Lock()
		wait := frameGap - time.Since(s.lastDraw)
		s.mu.Unlock()
		if wait > 0 {
			select {
			case <-s.done:
				return
			case <-time.After(wait):
			}
		}
		s.draw()
	}
}

// draw writes the lines of the newest view that differ from the
// terminal's, each from its first column to the end of the line, in one
// write. A line wider than the window is cut to its width: it would wrap
// onto the next row (on the last row, scroll the screen) and the rows on
// the terminal would no longer be the ones draw remembers. The rest of a
// narrower line is erased; a line as wide as the window has no rest, and
// erasing there would erase its last cell (the cursor stays on it).
func (s *screen) draw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty || s.handedOver {
		return
	}
	lines := strings.Split(s.view, "\n")
	if s.height > 0 && len(lines) > s.height {
		lines = lines[:s.height]
	}
	var b bytes.Buffer
	if s.resize {
		b.WriteString("\x1b[2J")
		s.last = nil
	}
	for i, l := range lines {
		if i < len(s.last) && s.last[i] == l {
			continue
		}
		w := ansi.StringWidth(l)
		if s.width > 0 && w > s.width {
			l = ansi.Truncate(l, s.width, "")
			w = ansi.StringWidth(l) // a wide character may not have fit
		}
		fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[0m", i+1, l)
		if s.width <= 0 || w < s.width {
			b.WriteString("\x1b[K")
		}
	}
	if len(lines) < len(s.last) {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[J", len(lines)+1)
	}
	if b.Len() > 0 {
		_, _ = s.out.Write(b.Bytes())
	}
	s.last = lines
	s.dirty, s.resize = false, false
	s.lastDraw = time.Now()
}

// drawn is a model whose frames the terminal draws: after every Update, the
// new view goes to the terminal.
//
// It also catches panics in the inner model's Init, Update and View and in
// its commands. bubbletea would catch them too, but it prints them to the
// alternate screen our terminal still holds, where they vanish when the
// terminal is given back. A panic is kept in crash instead and ends the
// program; Run returns it once the terminal is restored.
type drawn struct {
	inner tea.Model
	scr   *screen
	crash *panicked // the first panic; set only on the program's event loop
}

// panicked is a panic caught in the model or a command: the message a
// command's panic comes back as, and the error Run returns.
type panicked struct {
	value any
	stack []byte
}

func (p *panicked) Error() string {
	return content.Msg("tui.panicked", "value", p.value, "stack", strings.TrimSpace(string(p.stack)))
}

// caught records the first panic and ends the program.
func (d drawn) caught(p panicked) (tea.Model, tea.Cmd) {
	if d.crash.value == nil {
		*d.crash = p
	}
	return d, tea.Quit
}

func (d drawn) Init() (cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			_, cmd = d.caught(panicked{r, debug.Stack()})
		}
	}()
	return guard(d.inner.Init())
}

func (d drawn) Update(msg tea.Msg) (model tea.Model, cmd tea.Cmd) {
	if p, ok := msg.(panicked); ok {
		return d.caught(p)
	}
	if d.crash.value != nil {
		return d, nil // ending: the model may be half-updated
	}
	defer func() {
		if r := recover(); r != nil {
			model, cmd = d.caught(panicked{r, debug.Stack()})
		}
	}()
	m, cmd := d.inner.Update(msg)
	d.inner = m
	full := false
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		d.scr.mu.Lock()
		d.scr.width, d.scr.height = ws.Width, ws.Height
		d.scr.mu.Unlock()
		full = true
	}
	d.scr.submit(m.View(), full)
	return d, guard(cmd)
}

// View is never asked for: the program has no renderer of its own.
func (d drawn) View() string { return "" }

// guard makes a command's panic come back as a panicked message. The
// commands of a batch it returns (tea.BatchMsg), which bubbletea runs
// itself, are guarded too. A tea.Sequence's commands could not be: its
// message type is not exported, so labmate does not use tea.Sequence
// (TestNoSequences keeps it so). Whatever still escapes, bubbletea
// catches; Run then restores the terminal and says so.
func guard(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = panicked{r, debug.Stack()}
			}
		}()
		msg = cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			guarded := make(tea.BatchMsg, len(b))
			for i, c := range b {
				guarded[i] = guard(c)
			}
			return guarded
		}
		return msg
	}
}

// rawInput puts the input terminal in raw mode, which bubbletea does only
// when its own renderer runs: the command's stdin when it is a terminal,
// else /dev/tty (returned, to be passed with tea.WithInput), with the mode
// it had. restore gives the terminal its mode back and closes /dev/tty if
// it was opened; it is safe to call more than once.
func rawInput(stdin io.Reader) (in *os.File, cooked *term.State, restore func(), err error) {
	in, _ = stdin.(*os.File)
	opened := false
	if in == nil || !term.IsTerminal(int(in.Fd())) {
		if in, err = os.Open("/dev/tty"); err != nil {
			return nil, nil, nil, err
		}
		opened = true
	}
	closeIn := func() {
		if opened {
			_ = in.Close()
		}
	}
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		closeIn()
		return nil, nil, nil, err
	}
	return in, state, sync.OnceFunc(func() {
		_ = term.Restore(int(in.Fd()), state)
		closeIn()
	}), nil
}

// sendSizes sends the terminal's size to p now and on every SIGWINCH,
// until done is closed (bubbletea does so only with its own renderer).
// Sizes are sent one after the other from one goroutine, so the program
// gets them in the order they were read and the last one is the window's.
// Send blocks until the program takes the message, and returns at once
// after it ended.
func sendSizes(p *tea.Program, out *os.File, done <-chan struct{}) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		defer signal.Stop(winch)
		for {
			if w, h, err := term.GetSize(int(out.Fd())); err == nil {
				p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
			select {
			case <-done:
				return
			case <-winch:
			}
		}
	}()
}

// FrameRate is how many frames a second bubbletea's own renderer draws in
// the idle baseline the tests compare the TUI with (tuidemo -bare). That
// renderer's frame ticker runs whether or not anything changed (bubbletea
// v1 has no way to stop it): every labmate program draws through Run
// (its own frame writer) instead, and is idle when nothing changes.
const FrameRate = 20

// Run runs a model on the terminal the way the TUI runs: drawn by
// labmate's own terminal writer (idle when nothing changes), in raw mode,
// told the window's size, ended by SIGHUP as by SIGINT and SIGTERM, the
// terminal restored on every way out; a panic in the model or in one of
// its commands ends the program and is returned as the error. build gets
// the writer that reaches the terminal between frames (the clipboard's
// escape sequence). It returns the model as the program ended (nil if it
// never started). The instructor's board and the lab picker run through
// it too, each on the terminal of the Context its command made.
func Run(ctx context.Context, tc Context, build func(w io.Writer) tea.Model) (final tea.Model, err error) {
	page.NarrowAmbiguous()
	out, ok := tc.Out.(*os.File)
	if !ok {
		return nil, ErrNoTerminal
	}
	scr := newScreen(out)
	in, cooked, restore, err := rawInput(tc.In)
	if err != nil {
		return nil, err
	}
	defer restore()
	scr.tty, scr.cooked = in, cooked
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
			tc.Log.Error("program panicked", "panic", r)
		}
	}()
	m, err := p.Run()
	if d, ok := m.(drawn); ok {
		final = d.inner
	}
	// screen.stop (deferred above) leaves the alternate screen and then
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

// endError is what Run returns for the way the program ended
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
