package tui

import (
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/internal/termtext"
)

// Text labmate did not write (a lab's pages, hints, solutions and
// messages; what the learner's files hold; cluster objects; a script's
// output; the class's words; a replay's) enters the TUI through two
// doors, and each shows its control characters with termtext, once:
// cleanOptions for what the TUI is started with, fromOutside for what
// arrives while it runs. Past them every string is inert, so glamour
// renders clean markdown and lipgloss styles clean text, and the only
// escape sequences on the screen are the ones they and labmate make.

// cleanOptions returns opts with the text it carries cleaned: the lab's
// (before glamour renders a page of it, and before the copy key reads
// its commands), the root that fills {{ROOT}} (a lab's default_root),
// the banner and the notices.
func cleanOptions(opts Options) Options {
	opts.Lab = termtext.Deep(opts.Lab)
	opts.Root = termtext.Clean(opts.Root)
	opts.Banner = termtext.Clean(opts.Banner)
	opts.Notices = termtext.Deep(opts.Notices)
	return opts
}

// cleanErr is an error whose words are shown cleaned; errors.As and Is
// still see the error it wraps.
type cleanErr struct{ err error }

func (e cleanErr) Error() string { return termtext.Clean(e.err.Error()) }
func (e cleanErr) Unwrap() error { return e.err }

// fromOutside cleans the text of a message from outside the learner's
// keys: a report (check messages, observed values, problems, the
// cluster's words), the class publisher's status, a class lab note, the
// replay's status, tmux's words on a failed copy, why the lab root could
// not be made (it names the root).
func fromOutside(msg tea.Msg) tea.Msg {
	switch msg := msg.(type) {
	case reportMsg:
		msg.upd = termtext.Deep(msg.upd)
		return msg
	case classMsg:
		msg.st = termtext.Deep(msg.st)
		return msg
	case classLabMsg:
		msg.note = termtext.Deep(msg.note)
		return msg
	case replayMsg:
		msg.status = termtext.Clean(msg.status)
		return msg
	case rootMadeMsg:
		if msg.err != nil {
			msg.err = errors.New(termtext.Clean(msg.err.Error()))
		}
		return msg
	case comparedMsg:
		msg.c = termtext.Deep(msg.c)
		return msg
	case catchUpPlannedMsg:
		// The plan names the learner's files and the sandbox's context.
		msg.lines = termtext.Deep(msg.lines)
		msg.nothing = termtext.Clean(msg.nothing)
		if msg.err != nil {
			msg.err = cleanErr{msg.err}
		}
		return msg
	case catchUpLineMsg:
		// It names the lab's step titles.
		msg.line = termtext.Clean(msg.line)
		return msg
	case catchUpDoneMsg:
		msg.result = termtext.Clean(msg.result)
		if msg.err != nil {
			msg.err = cleanErr{msg.err}
		}
		return msg
	case editedMsg:
		if msg.err != nil {
			msg.err = cleanErr{msg.err}
		}
		msg.name = termtext.Clean(msg.name)
		msg.place = termtext.Deep(msg.place)
		return msg
	case copiedMsg:
		if msg.tmuxErr != nil {
			msg.tmuxErr = errors.New(termtext.Clean(msg.tmuxErr.Error()))
		}
		msg.text = termtext.Clean(msg.text)
		return msg
	}
	return msg
}
