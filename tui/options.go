package tui

import (
	"context"
	"time"

	"github.com/muesli/termenv"

	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
)

// Options is everything the TUI needs from the rest of labmate. Every
// field has a safe zero value.
type Options struct {
	Lab  *content.Lab
	Root string // absolute lab root, fills {{ROOT}} in the text
	// Place is the lab root as it was when the run started
	// (labroot.Look); one the learner cannot work in yet gets a note in
	// the footer and, when it is only missing, a key that makes it. The
	// zero value says nothing.
	Place   labroot.Place
	Updates <-chan labrun.Update // a new report after every change; nil: none will come
	Rescan  func()               // "check again now"; nil disables the key
	// Theme is "dark" or "light" (New treats anything else as dark). Run
	// draws in its context's theme, which the command settled from this
	// preference ("auto" or empty: the terminal's background) before the
	// program started (terminal.NewContext).
	Theme string
	// Banner is a short Korean marker for the header (replay mode, ...).
	Banner string

	// Colors is the colour depth. The zero value lets Run take its
	// context's colour profile (the terminal's, NO_COLOR honoured); New,
	// which has no terminal, then uses no colour at all.
	Colors ColorMode
	// Keys rebinds actions by name (from the config file's [keys] table).
	// Refused entries become notices.
	Keys map[string][]string
	// Clipboard is where the copy key sends text: "auto" (or empty): OSC 52,
	// and inside tmux also a tmux buffer; "osc52"; "tmux"; "off".
	Clipboard string
	// Progress is how far the learner went up each step's hint ladder in
	// an earlier run, by step number.
	Progress map[int]HintProgress
	// OnProgress, if set, is called (from a command, never from Update)
	// whenever the learner opens another hint or the worked solution; an
	// error it returns is shown in a toast.
	OnProgress func(step int, hintsSeen int, solutionSeen bool) error
	// Notices are Korean messages to show once at start (config warnings).
	Notices []string
	// Started and PassedAt are when the learner began the lab and first
	// passed each step (their progress): the ending's time per step, to
	// which the passes of this run are added as they come.
	Started  time.Time
	PassedAt map[int]time.Time
	// CaughtUpAt is when catch-up brought steps to their reference
	// (their progress): the ending shows them caught up, not passed, and
	// counts none of their time as the learner's. The catch-ups of this
	// run are added as they end.
	CaughtUpAt map[int]time.Time
	// StartPage is the page to open on (0 = introduction, n = step n), so
	// reopening labmate returns to where the learner was.
	StartPage int
	// OnPage, if set, is called (from a command, never from Update) when
	// the learner moves to another page; an error it returns is shown in
	// a toast.
	OnPage func(page int) error
	// Replay, if set, is the replay the reports come from: the TUI binds
	// pause, speed and jump-to-next-change to it (those keys exist only
	// then) and shows its Status in a header row, redrawn on Updates.
	Replay ReplayControl
	// Class, if set, delivers the class publisher's status (--class); the
	// step strip then ends with a small class indicator.
	Class <-chan learner.Status
	// ClassLab, if set, delivers what the class said of its lab while it
	// runs (a new version, a refused one): a note in the step strip.
	ClassLab <-chan classlab.LabNote
	// Hands, if set, is the learner's hand in the class: the hand key
	// raises (with a note) and lowers it.
	Hands Hands
	// PlanCatchUp, if set, plans the catch-up to step to (the plan
	// `labmate catch-up --to` makes, on a run of its own): the catch-up
	// key shows it and, on the learner's yes, does it. Its error
	// (Korean) is a refusal: nothing changed. Called from a command.
	PlanCatchUp func(ctx context.Context, to int) (CatchUpPlan, error)
}

// ReplayControl is what the TUI needs of a replay (package trace
// implements it). Methods are safe to call from any goroutine and never
// block; the TUI calls them from commands only.
type ReplayControl interface {
	TogglePause()
	CycleSpeed()
	// NextChange fast-forwards to the next observation that changes a
	// step's status.
	NextChange()
	// Status is a short Korean line: position, speed, paused.
	Status() string
	// Updates receives a value (coalesced) whenever Status may have
	// changed. It stays quiet while nothing changes (paused, finished),
	// so the TUI stays idle; a closed channel means no more changes.
	Updates() <-chan struct{}
	// Done reports that the replay has delivered everything: pause,
	// speed and next change no longer do anything.
	Done() bool
}

// HintProgress is one step's place on the hint ladder.
type HintProgress struct {
	Seen     int  // hints opened so far
	Solution bool // the worked solution was opened
}

// ColorMode is the colour depth the TUI draws with.
type ColorMode int

const (
	ColorsFromTerminal ColorMode = iota // Run: ask the terminal; New: none
	ColorsNone                          // no escape sequences at all (NO_COLOR)
	Colors16
	Colors256
	ColorsTrue
)

func (c ColorMode) profile() termenv.Profile {
	switch c {
	case Colors16:
		return termenv.ANSI
	case Colors256:
		return termenv.ANSI256
	case ColorsTrue:
		return termenv.TrueColor
	default:
		return termenv.Ascii
	}
}

func colorModeOf(p termenv.Profile) ColorMode {
	switch p {
	case termenv.ANSI:
		return Colors16
	case termenv.ANSI256:
		return Colors256
	case termenv.TrueColor:
		return ColorsTrue
	default:
		return ColorsNone
	}
}

// Clipboard modes.
const (
	ClipboardAuto  = "auto"
	ClipboardOSC52 = "osc52"
	ClipboardTmux  = "tmux"
	ClipboardOff   = "off"
)
