package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/theme"
)

// LabChoice is one lab the picker offers.
type LabChoice struct {
	ID    string
	Title string
	Steps int
}

// ErrNoChoice is PickLab's error when the learner left without choosing.
var ErrNoChoice = fmt.Errorf("no lab chosen")

// PickLab shows the installed labs and returns the ID of the one the
// learner opens (enter), or ErrNoChoice (q, esc, ctrl+c). It runs as the
// TUI does (RunProgram): drawn by labmate's frame writer, the terminal
// restored on every way out.
func PickLab(ctx context.Context, labs []LabChoice, themeName string) (string, error) {
	page.NarrowAmbiguous()
	out := os.Stdout
	th := theme.New(theme.Resolve(themeName, out), theme.DetectProfile(out))
	final, err := RunProgram(ctx, out, func(io.Writer) tea.Model { return newPicker(labs, th) })
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if pm, ok := final.(picker); ok && pm.chosen >= 0 {
		return labs[pm.chosen].ID, nil
	}
	return "", ErrNoChoice
}

// picker is the lab picker: a list, a cursor, and the keys to move it.
type picker struct {
	labs          []LabChoice
	cursor        int
	chosen        int
	width, height int
	th            theme.Theme
	up, down, ok  key.Binding
	quit          key.Binding
}

func newPicker(labs []LabChoice, th theme.Theme) picker {
	return picker{
		// An installed lab's title is its author's: the picker's door.
		labs: termtext.Deep(labs), chosen: -1, th: th, width: 60, height: 20,
		up:   key.NewBinding(key.WithKeys("up", "k")),
		down: key.NewBinding(key.WithKeys("down", "j")),
		ok:   key.NewBinding(key.WithKeys("enter")),
		quit: key.NewBinding(key.WithKeys("q", "esc", "ctrl+c")),
	}
}

func (m picker) Init() tea.Cmd { return nil }

func (m picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.up):
			m.cursor = (m.cursor + len(m.labs) - 1) % len(m.labs)
		case key.Matches(msg, m.down):
			m.cursor = (m.cursor + 1) % len(m.labs)
		case key.Matches(msg, m.ok):
			m.chosen = m.cursor
			return m, tea.Quit
		case key.Matches(msg, m.quit):
			return m, tea.Quit
		default:
			// A digit opens that lab of the list at once.
			if s := msg.String(); len(s) == 1 && s[0] >= '1' && s[0] <= '9' {
				if i := int(s[0] - '1'); i < len(m.labs) {
					m.chosen = i
					return m, tea.Quit
				}
			}
		}
	}
	return m, nil
}

func (m picker) View() string {
	w := max(m.width, 20)
	var lines []string
	lines = append(lines, m.th.Title.Render(content.Msg("tui.picker.title")), "")
	for i, l := range m.labs {
		mark := "  "
		style := m.th.Muted
		if i == m.cursor {
			mark, style = "▸ ", m.th.Title
		}
		head := fmt.Sprintf("%s%d %s", mark, i+1, l.ID)
		lines = append(lines, style.Render(ansi.Truncate(head, w, "…")))
		for _, t := range strings.Split(ansi.Wordwrap(content.Msg("tui.picker.entry", "title", l.Title, "steps", l.Steps), w-4, ""), "\n") {
			lines = append(lines, "    "+ansi.Truncate(t, w-4, "…"))
		}
	}
	lines = append(lines, "", m.th.Muted.Render(ansi.Truncate(content.Msg("tui.picker.keys", "n", len(m.labs)), w, "…")))
	if len(lines) > m.height && m.height > 0 {
		lines = lines[:m.height]
	}
	return strings.Join(lines, "\n")
}
