package tui

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/testbin"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe/scriptprobe"
	"github.com/labhub/labmate/tui/internal/fixture"
)

func TestMain(m *testing.M) {
	// The script sandbox's helper entry, as cmd/labmate has it: a real
	// catch-up's run of gpu-incident probes step 4's script.
	if scriptprobe.IsInit() {
		scriptprobe.InitMain()
	}
	// Goldens and width checks must not depend on the machine's terminal
	// or locale.
	lipgloss.SetColorProfile(termenv.Ascii)
	runewidth.DefaultCondition.EastAsianWidth = false
	// Inside tmux the copy key has one more target; goldens must not care.
	os.Unsetenv("TMUX")
	code := m.Run()
	// The programs the tmux tests built (tens of MB each).
	testbin.Remove()
	os.Exit(code)
}

// narrow measures like the tmux tests do: go-runewidth, ambiguous = 1.
var narrow = &runewidth.Condition{EastAsianWidth: false}

// testModel is a sized model showing the fixture lab with its report, all
// renderings done.
func testModel(t *testing.T, w, h int, opts ...func(*Options)) Model {
	t.Helper()
	lab := fixture.Lab()
	o := Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone}
	for _, f := range opts {
		f(&o)
	}
	m := New(o)
	m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = send(t, m, reportOf(m, fixture.Report(o.Lab)))
	return m
}

// send delivers msg and then every message its commands produce (render
// results, ...), the way the program would. Commands that do not finish
// quickly (toast timers, report waits) are left alone.
func send(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	m, cmd := update(m, msg)
	for i := 0; cmd != nil && i < 20; i++ {
		var next []tea.Cmd
		for _, msg := range runCmd(cmd) {
			var c tea.Cmd
			m, c = update(m, msg)
			if c != nil {
				next = append(next, c)
			}
		}
		cmd = tea.Batch(next...)
	}
	return m
}

func update(m Model, msg tea.Msg) (Model, tea.Cmd) {
	mm, cmd := m.Update(msg)
	return mm.(Model), cmd
}

// runCmd runs a command and returns the messages it produced, flattening
// batches. A command that waits for the outside (a timer, the class
// feed, the replay's next change) is left waiting when nothing has come:
// the tests hand the model what those would bring themselves. That it
// waits is seen, not timed: its goroutine parks in a channel receive
// inside one of waits (a render under a busy machine's load takes as
// long as it takes). Any other command is waited for; one that has not
// returned after 30 s is a hang, and panics.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	ids := make(chan string, 1)
	go func() {
		ids <- goroutineID()
		ch <- cmd()
	}()
	id := <-ids
	deadline := time.Now().Add(30 * time.Second)
	var msg tea.Msg
	// Looking stops the world for a moment: every millisecond at first
	// (most commands are done by then), then less often.
	for pause := time.Millisecond; msg == nil; pause = min(2*pause, 20*time.Millisecond) {
		select {
		case msg = <-ch:
			if msg == nil {
				return nil
			}
			continue
		case <-time.After(pause):
		}
		if waiting(id) {
			return nil
		}
		if time.Now().After(deadline) {
			panic("runCmd: the command did not return in 30 s")
		}
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// waits are the functions of the commands that wait for the outside, as
// they appear in a goroutine's stack (closures, possibly inlined into
// their callers: "tui.(*Model).event.(*replayBar).Update.waitReplay.func5").
var waits = []string{".waitClass.func", ".waitAcks.func", ".waitClassLab.func", ".waitReplay.func", ".waitReport.func", "bubbletea.Tick.func"}

// goroutineID is the calling goroutine's number, from its stack's header
// ("goroutine 18 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// waiting reports whether goroutine id is parked in a channel receive
// (or a select) whose innermost frame is one of waits.
func waiting(id string) bool {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, rest, _ := strings.Cut(g, "\n")
		if !strings.HasPrefix(header, "goroutine "+id+" [") {
			continue
		}
		state := strings.TrimPrefix(header, "goroutine "+id+" [")
		if !strings.HasPrefix(state, "chan receive") && !strings.HasPrefix(state, "select") {
			return false
		}
		// The innermost frame of its own (GOTRACEBACK=system shows the
		// runtime's first), then its file line.
		for _, frame := range strings.Split(rest, "\n") {
			if strings.HasPrefix(frame, "runtime.") || strings.HasPrefix(frame, "\t") {
				continue
			}
			for _, w := range waits {
				if strings.Contains(frame, w) {
					return true
				}
			}
			return false
		}
		return false
	}
	return false
}

func sizeMsg(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func press(t *testing.T, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		m = send(t, m, keyMsg(k))
	}
	return m
}

// screen is the plain text of the view.
func screen(m Model) string { return ansi.Strip(m.View()) }

// checkFits fails when the view is not exactly the pane: as many lines as
// it is tall, none wider than it is wide.
func checkFits(t *testing.T, m Model) {
	t.Helper()
	lines := strings.Split(m.View(), "\n")
	if len(lines) != m.height {
		t.Errorf("%dx%d: view has %d lines", m.width, m.height, len(lines))
	}
	for i, l := range lines {
		if w := narrow.StringWidth(ansi.Strip(l)); w > m.width {
			t.Errorf("%dx%d: line %d is %d wide: %q", m.width, m.height, i, w, ansi.Strip(l))
		}
		if strings.ContainsRune(l, '\uFFFD') {
			t.Errorf("line %d has U+FFFD: %q", i, l)
		}
	}
	// Every line the layout cut after the fact is recorded: the layout
	// must size its own lines.
	if c := m.cuts.take(); len(c) > 0 && !m.tooSmall() {
		t.Errorf("%dx%d: the layout cut %d lines to fit (text the learner does not see):\n%s", m.width, m.height, len(c), strings.Join(c, "\n"))
	}
}

func withReport(rep engine.Report, n int, st checks.Status) engine.Report {
	return fixture.With(rep, fixture.Lab(), n, st)
}

func msg(key string, kv ...any) string { return content.Msg(key, kv...) }

// reportOf is the message of rep arriving after what m shows, as the
// run's stream would hand it over.
func reportOf(m Model, rep engine.Report) reportMsg {
	return reportMsg{labrun.Next(m.report, rep)}
}
