package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/page"
)

// rootPlace is the lab root the TUI was started on when the learner
// cannot work there yet (Options.Place): the footer says where the lab's
// files go and why not yet, until the learner closes it or it is made;
// a root still to be made is made on the learner's key (only the
// directory); for any other, the introduction lists the fixes. Its text
// is cleaned once, in New: the root is a path from outside.
type rootPlace struct {
	note string // the footer's words ("" when there is nothing to say)
	// fixes is the note with its fixes, for the introduction, when the
	// key cannot help ("": it can, or nothing to say).
	fixes string
	root  string
	make  func() (bool, error) // nil: the key does not apply
	tried bool                 // the key was pressed: it applies no more
}

func newRootPlace(p labroot.Place) rootPlace {
	if p.State == "" || p.State == labroot.Ready {
		return rootPlace{}
	}
	r := rootPlace{note: termtext.Clean(p.Note()), root: termtext.Clean(p.Path)}
	if p.State == labroot.Missing && p.CanMake {
		r.make = p.Make
	} else {
		r.fixes = termtext.Clean(p.Say())
	}
	return r
}

// canMake reports whether the key that makes the root applies now.
func (r rootPlace) canMake() bool { return r.make != nil && !r.tried }

// rootMadeMsg is the end of making the root: made false with no error
// when a directory was there already.
type rootMadeMsg struct {
	made bool
	err  error
}

// makeRoot makes the root from a command, once.
func (m *Model) makeRoot() tea.Cmd {
	if !m.root.canMake() {
		return nil
	}
	m.root.tried = true
	mk := m.root.make
	return func() tea.Msg {
		made, err := mk()
		return rootMadeMsg{made, err}
	}
}

// rootMade says how making the root went: the footer's note goes, and
// a toast says it is there, or the note says why it could not be made
// (with what to do instead).
func (m *Model) rootMade(msg rootMadeMsg) tea.Cmd {
	if msg.err != nil {
		m.foot.setPlace(msg.err.Error(), true)
		return nil
	}
	m.foot.setPlace("", false)
	key := "tui.toast.root_made"
	if !msg.made {
		key = "tui.toast.root_there"
	}
	return m.foot.showToast(toast{text: content.Msg(key, "root", m.root.root), target: -1})
}

// rootBlocks are the introduction's words on a root the key cannot
// help with: where the files go, why not there, the fixes.
func (m Model) rootBlocks() []block {
	if m.root.fixes == "" {
		return nil
	}
	var lines []string
	for i, l := range strings.Split(m.root.fixes, "\n") {
		l = page.Untab(strings.TrimSpace(l))
		if i == 0 {
			lines = append(lines, page.Wrap(l, m.width-1, " ", " ")...)
			continue
		}
		lines = append(lines, page.Wrap(l, m.width-1, "   ", "     ")...)
	}
	return []block{m.canvas().section(content.Msg("tui.root.title")), {lines: lines}}
}
