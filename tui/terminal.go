package tui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"
)

// terminal draws the TUI's frames itself, when the view changes and only
// then. bubbletea v1's renderer redraws on a ticker (FrameRate times a
// second, whether or not anything changed, with no way to stop it): twenty
// wakeups a second is the whole of an idle TUI's CPU. Here the program
// runs with tea.WithoutRenderer; after every Update the new view is handed
// to a goroutine that sleeps until there is one, draws the lines that
// changed, and draws at most once per frameGap so a burst costs one frame.
// A key press is drawn as soon as it is handled.
type terminal struct {
	out io.Writer
	mu  sync.Mutex // guards out (the clipboard writes through Write too) and the fields below

	view          string // the newest view, not yet drawn when dirty
	dirty, resize bool
	last          []string // the lines on the terminal
	height        int
	lastDraw      time.Time

	wake chan struct{} // one slot: a view is waiting
	done chan struct{}
	gone chan struct{}
}

// frameGap is the least time between two frames (60 a second at most).
const frameGap = time.Second / 60

func newTerminal(out io.Writer) *terminal {
	return &terminal{out: out, wake: make(chan struct{}, 1), done: make(chan struct{}), gone: make(chan struct{})}
}

// start takes the terminal: the alternate terminal, cleared, cursor hidden,
// bracketed paste on (a paste arrives as one message, not as keys).
func (s *terminal) start() {
	s.mu.Lock()
	_, _ = io.WriteString(s.out, "\x1b[?1049h\x1b[2J\x1b[H\x1b[?25l\x1b[?2004h")
	s.mu.Unlock()
	go s.loop()
}

// stop ends the drawing goroutine and gives the terminal back: bracketed
// paste off, the cursor shown, the main terminal.
func (s *terminal) stop() {
	close(s.done)
	<-s.gone
	s.mu.Lock()
	_, _ = io.WriteString(s.out, "\x1b[?2004l\x1b[?1049l\x1b[?25h")
	s.mu.Unlock()
}

// submit hands over the newest view; full asks for the whole terminal to be
// drawn again (after a resize).
func (s *terminal) submit(view string, full bool) {
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
func (s *terminal) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

func (s *terminal) loop() {
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
// write.
func (s *terminal) draw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
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
		fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[0m\x1b[K", i+1, l)
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
type drawn struct {
	inner tea.Model
	scr   *terminal
}

func (d drawn) Init() tea.Cmd { return d.inner.Init() }

func (d drawn) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := d.inner.Update(msg)
	d.inner = m
	full := false
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		d.scr.mu.Lock()
		d.scr.height = ws.Height
		d.scr.mu.Unlock()
		full = true
	}
	d.scr.submit(m.View(), full)
	return d, cmd
}

// View is never asked for: the program has no renderer of its own.
func (d drawn) View() string { return "" }

// rawInput puts the input terminal in raw mode, which bubbletea does only
// when its own renderer runs: stdin when it is a terminal, else /dev/tty
// (returned, to be passed with tea.WithInput). restore gives the terminal
// its mode back; it is safe to call more than once.
func rawInput() (in *os.File, restore func(), err error) {
	in = os.Stdin
	if !term.IsTerminal(int(in.Fd())) {
		if in, err = os.Open("/dev/tty"); err != nil {
			return nil, nil, err
		}
	}
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return in, func() { once.Do(func() { _ = term.Restore(int(in.Fd()), state) }) }, nil
}

// sendSizes sends the terminal's size to p now and on every SIGWINCH,
// until done is closed (bubbletea does so only with its own renderer).
func sendSizes(p *tea.Program, out *os.File, done <-chan struct{}) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		defer signal.Stop(winch)
		defer func() { _ = recover() }()
		for {
			if w, h, err := term.GetSize(int(out.Fd())); err == nil {
				go p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
			select {
			case <-done:
				return
			case <-winch:
			}
		}
	}()
}
