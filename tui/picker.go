package tui

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/component"
	"github.com/labhub/labmate/tui/keys"
	"github.com/labhub/labmate/tui/terminal"
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

// PickLab shows the installed labs on the context's terminal and
// returns the ID of the one the learner opens (enter), or ErrNoChoice
// (q, esc, ctrl+c). It runs as the TUI does (terminal.Run): drawn by
// labmate's frame writer, the terminal restored on every way out.
func PickLab(ctx context.Context, tc terminal.Context, labs []LabChoice) (string, error) {
	page.NarrowAmbiguous()
	th := theme.New(tc.Theme, tc.Profile)
	final, err := terminal.Run(ctx, tc, func(io.Writer) tea.Model { return newPicker(labs, th) })
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
// It is a component: its help line is its key map's.
type picker struct {
	labs          []LabChoice
	cursor        int
	chosen        int
	width, height int
	th            theme.Theme
	keys          keys.Picker
	help          help.Model
}

var _ component.Component = (*picker)(nil)

func newPicker(labs []LabChoice, th theme.Theme) picker {
	h := th.Help()
	// The picker's help line is muted whole, keys and words alike.
	h.Styles.ShortKey, h.Styles.ShortDesc, h.Styles.ShortSeparator = th.Muted, th.Muted, th.Muted
	return picker{
		// An installed lab's title is its author's: the picker's door.
		labs: termtext.Deep(labs), chosen: -1, th: th, width: 60, height: 20,
		keys: keys.NewPicker(len(labs)),
		help: h,
	}
}

func (m picker) Init() tea.Cmd { return nil }

// SetSize gives the picker the pane.
func (m *picker) SetSize(w, h int) { m.width, m.height = w, h }

// ShortHelp is the picker's help line: the cursor's keys as one (j/k),
// opening, opening by number and leaving.
func (m picker) ShortHelp() []key.Binding {
	move := m.keys.Down
	move.SetHelp(m.keys.Down.Help().Key+"/"+m.keys.Up.Help().Key, m.keys.Down.Help().Desc)
	return []key.Binding{move, m.keys.Open, m.keys.Pick, m.keys.Quit}
}

// FullHelp is every key of the picker.
func (m picker) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{{k.Up, k.Down}, {k.Open, k.Pick}, {k.Quit}}
}

func (m picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.keys.Up):
			m.cursor = (m.cursor + len(m.labs) - 1) % len(m.labs)
		case key.Matches(msg, m.keys.Down):
			m.cursor = (m.cursor + 1) % len(m.labs)
		case key.Matches(msg, m.keys.Open):
			m.chosen = m.cursor
			return m, tea.Quit
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		case key.Matches(msg, m.keys.Pick):
			// A digit opens that lab of the list at once.
			if i := int(msg.String()[0] - '1'); i < len(m.labs) {
				m.chosen = i
				return m, tea.Quit
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
			mark, style = theme.GlyphCurrent+" ", m.th.Title
		}
		head := fmt.Sprintf("%s%d %s", mark, i+1, l.ID)
		lines = append(lines, style.Render(ansi.Truncate(head, w, "…")))
		for _, t := range strings.Split(ansi.Wordwrap(content.Msg("tui.picker.entry", "title", l.Title, "steps", l.Steps), w-4, ""), "\n") {
			lines = append(lines, "    "+ansi.Truncate(t, w-4, "…"))
		}
	}
	lines = append(lines, "", ansi.Truncate(m.help.ShortHelpView(m.ShortHelp()), w, "…"))
	if len(lines) > m.height && m.height > 0 {
		lines = lines[:m.height]
	}
	return strings.Join(lines, "\n")
}
