// Package theme holds labmate's looks: the dark and light palettes and
// the mark of the current page (the status glyphs are checks', the
// glamour style for step text is page's, chosen by Look). Everything here is
// decided once, before the program starts, from the chosen theme and the
// terminal's colour profile; nothing queries the terminal while the TUI runs.
package theme

import (
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/page"
)

// Theme names.
const (
	Dark  = "dark"
	Light = "light"
	Auto  = "auto"
)

// GlyphCurrent marks the page on screen in the step strip and the
// learner under the cursor on the board. Like the status glyphs
// (checks.Status.Glyph) it is not East-Asian-ambiguous: one cell in every
// terminal.
const GlyphCurrent = "▸"

// Theme is the resolved look of one run.
type Theme struct {
	Name    string          // Dark or Light
	Profile termenv.Profile // what the terminal can show; Ascii means no escapes at all

	r *lipgloss.Renderer

	Header     lipgloss.Style
	Current    lipgloss.Style // the current page in the step strip
	Title      lipgloss.Style
	Muted      lipgloss.Style
	Section    lipgloss.Style
	Key        lipgloss.Style
	Desc       lipgloss.Style
	Toast      lipgloss.Style
	Alert      lipgloss.Style
	Banner     lipgloss.Style
	Hint       lipgloss.Style
	statusBase map[checks.Status]lipgloss.Style
}

// New builds a theme. An unknown name falls back to dark.
func New(name string, profile termenv.Profile) Theme {
	if name != Light {
		name = Dark
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(profile)
	r.SetHasDarkBackground(name == Dark)
	c := func(dark, light string) lipgloss.Color {
		if name == Dark {
			return lipgloss.Color(dark)
		}
		return lipgloss.Color(light)
	}
	t := Theme{Name: name, Profile: profile, r: r}
	t.Header = r.NewStyle().Foreground(c("252", "236"))
	t.Current = r.NewStyle().Bold(true).Foreground(c("231", "16")).Background(c("61", "153"))
	t.Title = r.NewStyle().Bold(true).Foreground(c("231", "16"))
	t.Muted = r.NewStyle().Foreground(c("245", "242"))
	t.Section = r.NewStyle().Bold(true).Foreground(c("75", "25"))
	t.Key = r.NewStyle().Bold(true).Foreground(c("250", "238"))
	t.Desc = r.NewStyle().Foreground(c("244", "243"))
	t.Toast = r.NewStyle().Foreground(c("16", "231")).Background(c("114", "28"))
	t.Alert = r.NewStyle().Bold(true).Foreground(c("231", "231")).Background(c("160", "124"))
	t.Banner = r.NewStyle().Bold(true).Foreground(c("16", "231")).Background(c("179", "130"))
	t.Hint = r.NewStyle().Foreground(c("222", "94"))
	t.statusBase = map[checks.Status]lipgloss.Style{
		checks.Passed:  r.NewStyle().Foreground(c("78", "28")),
		checks.Failed:  r.NewStyle().Foreground(c("203", "160")),
		checks.Waiting: r.NewStyle().Foreground(c("221", "136")),
		checks.Unknown: r.NewStyle().Foreground(c("246", "242")),
		checks.Error:   r.NewStyle().Foreground(c("213", "127")),
	}
	return t
}

// Status returns the style for a status (colour only; the caller adds the
// glyph and the word).
func (t Theme) Status(s checks.Status) lipgloss.Style {
	if st, ok := t.statusBase[s]; ok {
		return st
	}
	return t.statusBase[checks.Unknown]
}

// NoColor reports whether this theme emits no escape sequences at all.
func (t Theme) NoColor() bool { return t.Profile == termenv.Ascii }

// Help is a bubbles help model in this theme's colours, for a help line
// of keys: the key bold, its word plain, two blanks between entries and
// ".." where a line is cut. Every component's help line is drawn with it.
func (t Theme) Help() help.Model {
	h := help.New()
	h.ShortSeparator = "  "
	h.FullSeparator = "  "
	h.Ellipsis = ".."
	h.Styles = help.Styles{
		ShortKey: t.Key, ShortDesc: t.Desc, ShortSeparator: t.Muted, Ellipsis: t.Muted,
		FullKey: t.Key, FullDesc: t.Desc, FullSeparator: t.Muted,
	}
	return h
}

// Look is what page renders markdown for: the background and the
// colour profile of this theme (the glamour style itself is page's).
func (t Theme) Look() page.Look { return page.Look{Light: t.Name == Light, Profile: t.Profile} }

// Resolve turns a theme preference into Dark or Light. "auto" (or empty)
// asks the terminal for its background colour through out; it must run
// before the TUI takes over the terminal, and falls back to dark when the
// terminal does not answer (tmux never forwards the query).
func Resolve(pref string, out *os.File) string {
	switch strings.ToLower(strings.TrimSpace(pref)) {
	case Dark:
		return Dark
	case Light:
		return Light
	}
	if out == nil {
		return Dark
	}
	o := termenv.NewOutput(out)
	if o.EnvNoColor() || !isTerminal(out) {
		// No colour at all, or nothing to ask: the theme hardly matters.
		return Dark
	}
	if o.HasDarkBackground() {
		return Dark
	}
	return Light
}

// DetectProfile returns the colour profile the terminal behind out really
// has, honouring NO_COLOR (no colour escapes at all), CLICOLOR and
// CLICOLOR_FORCE; 256-colour tmux (TERM=tmux-256color or screen-256color)
// gives ANSI256.
func DetectProfile(out *os.File) termenv.Profile {
	if out == nil {
		return termenv.Ascii
	}
	return termenv.NewOutput(out).EnvColorProfile()
}

// isTerminal is x/term's test: a character device such as /dev/null is
// not a terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
