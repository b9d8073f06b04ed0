package terminal

import (
	"errors"
	"io"
	"log/slog"
	"os"

	"github.com/muesli/termenv"

	"github.com/labhub/labmate/tui/theme"
)

// Context is what a command hands every labmate program it runs (the
// learner's TUI, the lab picker, the instructor's board), made once from
// the command's own streams, as gh-dash hands its components one
// program context: where the program reads keys and draws, the colour
// profile and theme settled before it starts, and where it logs. Nothing
// in tui/ reaches for the process's stdin or stdout itself.
type Context struct {
	// In is the command's stdin: the keys, when it is a terminal
	// (otherwise /dev/tty is opened).
	In io.Reader
	// Out is the command's stdout, the terminal the program draws on.
	Out io.Writer
	// Profile is the colour profile of Out (NO_COLOR honoured).
	Profile termenv.Profile
	// Theme is "dark" or "light", settled before the program starts.
	Theme string
	// Log is where the program logs (the --log file, or nowhere).
	Log *slog.Logger
}

// ErrNoTerminal is Run's error for a Context whose Out is no file.
var ErrNoTerminal = errors.New("terminal: the output is not a terminal")

// NewContext settles, before a program starts, what must not be asked of
// the terminal while it runs: the theme (pref "dark", "light", or
// "auto"/"" to ask the terminal behind out for its background) and the
// colour profile of out. log nil logs nowhere.
func NewContext(in io.Reader, out io.Writer, pref string, log *slog.Logger) Context {
	f, _ := out.(*os.File)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return Context{In: in, Out: out, Profile: theme.DetectProfile(f), Theme: theme.Resolve(pref, f), Log: log}
}
