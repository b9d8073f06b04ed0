package tui

import (
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/component"
	"github.com/labhub/labmate/tui/keys"
	"github.com/labhub/labmate/tui/theme"
)

// How long a toast stays. A toast is one timer, not a tick loop.
const toastTTL = 8 * time.Second

// toastLines is how many lines a toast may take.
const toastLines = 2

// placeLines is how many lines the note on the lab root may take: a
// root outside the home is a long path.
const placeLines = 3

// footer is the bottom of the screen: bottom up, the help line, then what
// the learner should read now: a toast, a regression alert, the solution
// question. It resolves what it shows: a newer fact about a step replaces
// an older one, so a pass toast never stays under the alert that the same
// step is red again, and only one note promises where enter goes. It is a
// component: its own keys are the question's answers, and its help line
// shows the screen's keys (SetKeyMap), read through help.KeyMap.
type footer struct {
	th    theme.Theme
	help  help.Model
	width int

	keys    help.KeyMap           // the screen's keys, as they are now
	giveWay func(key.Binding) int // which hints leave a help line short of room first

	toast   *toast
	toastID int
	alert   *alert
	// place says where the lab's files go while the learner cannot work
	// there yet (the lab root still to be made, or not theirs); it stays
	// until closed or set right. placeBad: the learner must act
	// elsewhere (the alert's colour), not just press a key.
	place    string
	placeBad bool
	confirm  bool // asking whether to open the worked solution
	// input is the line being typed (a raised hand's note), "" when
	// none.
	input string
	// question is what a view asks while it waits for yes or no (the
	// catch-up's plan), "" when none: kept in sight under a long view.
	question string
	yes, no  key.Binding
}

type toast struct {
	id   int
	text string
	// target is the page enter goes to while the toast shows (-1: none;
	// endingTarget: the ending);
	// steps are the step numbers the toast is about.
	target int
	steps  []int
	// gone is the toast without how to go on, for when a newer alert
	// takes the enter key (empty: the toast goes whole).
	gone string
	// words, when set, words the toast with its variable parts (the
	// copied text, an error) cut to room cells, so that a toast too long
	// for its lines gives up those first, never how to go on.
	words func(room int) string
}

// alert is a regression: a step that had passed turned red. It stays
// until the learner dismisses it, goes there, or the step passes again.
type alert struct {
	steps []int // step numbers
	text  string
}

type toastExpiredMsg struct{ id int }

var _ component.Component = (*footer)(nil)

func newFooter(th theme.Theme) footer {
	return footer{th: th, help: th.Help(), keys: component.Keys{}, giveWay: func(key.Binding) int { return 0 }}
}

// SetSize gives the footer the pane's width; its height follows from what
// it shows (its View's lines), so the height given is not used.
func (f *footer) SetSize(w, _ int) { f.width = w }

// SetKeyMap gives the footer the screen's keys for its help line, and
// how early each hint gives way when the line is short of room.
func (f *footer) SetKeyMap(km help.KeyMap, giveWay func(key.Binding) int) {
	f.keys, f.giveWay = km, giveWay
}

// Init starts nothing: a toast's timer starts with the toast.
func (f footer) Init() tea.Cmd { return nil }

// Update takes down the toast whose timer ran out.
func (f *footer) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if msg, ok := msg.(toastExpiredMsg); ok {
		f.expire(msg.id)
	}
	return f, nil
}

// syncKeys enables the answers to the footer's question exactly while it
// asks, and takes them as its own keys.
func (f *footer) syncKeys(k *keys.KeyMap) {
	k.Yes.SetEnabled(f.confirm)
	k.No.SetEnabled(f.confirm)
	k.Yes.SetHelp(k.Yes.Help().Key, content.Msg("tui.short.yes"))
	k.No.SetHelp(k.No.Help().Key, content.Msg("tui.short.no"))
	f.yes, f.no = k.Yes, k.No
}

// ShortHelp is what the footer itself offers: the answers to its question.
func (f footer) ShortHelp() []key.Binding {
	if f.confirm {
		return []key.Binding{f.yes, f.no}
	}
	return nil
}

// FullHelp is the footer's keys: the answers.
func (f footer) FullHelp() [][]key.Binding { return [][]key.Binding{{f.yes, f.no}} }

// reply is the learner's answer to the footer's question.
type reply int

const (
	replyNone reply = iota // another key: the question stays
	replyYes
	replyNo
)

// ask puts the question whether to open the worked solution.
func (f *footer) ask() { f.confirm = true }

// asking reports whether the question is on screen: while it is, every
// key but quit goes to answer.
func (f footer) asking() bool { return f.confirm }

// answer takes a key while the question is asked; yes and no close it.
func (f *footer) answer(msg tea.KeyMsg) reply {
	switch {
	case key.Matches(msg, f.yes):
		f.confirm = false
		return replyYes
	case key.Matches(msg, f.no):
		f.confirm = false
		return replyNo
	}
	return replyNone
}

// hasNote reports whether a toast, an alert or the place note is up
// (close dismisses it).
func (f footer) hasNote() bool { return f.alert != nil || f.toast != nil || f.place != "" }

// setPlace puts up the note on the lab root ("" takes it down).
func (f *footer) setPlace(text string, bad bool) { f.place, f.placeBad = text, bad }

// alerting reports whether a regression alert is up: it holds enter.
func (f footer) alerting() bool { return f.alert != nil }

// newestToast is the id of the toast shown last; showing tells whether
// the toast of that id is still up.
func (f footer) newestToast() int    { return f.toastID }
func (f footer) showing(id int) bool { return f.toast != nil && f.toast.id == id }
func (f *footer) dropToast()         { f.toast = nil }

// followed takes both notes down: the learner went where they pointed.
func (f *footer) followed() {
	f.alert = nil
	f.toast = nil
}

// target is the page enter goes to: a regressed step's (pageOf finds a
// step's page), else the one the toast points at; only pages that away
// says change what is on screen count (-1: none).
func (f footer) target(pageOf func(step int) int, away func(page int) bool) int {
	if a := f.alert; a != nil {
		for _, n := range a.steps {
			if p := pageOf(n); p >= 0 && away(p) {
				return p
			}
		}
		return -1
	}
	if t := f.toast; t != nil && t.target != -1 && away(t.target) {
		return t.target
	}
	return -1
}

// showToast puts t up, replacing any toast, with the timer that takes it
// down.
func (f *footer) showToast(t toast) tea.Cmd {
	f.toastID++
	t.id = f.toastID
	f.toast = &t
	id := t.id
	return tea.Tick(toastTTL, func(time.Time) tea.Msg { return toastExpiredMsg{id} })
}

// expire takes down the toast its timer was for (not a newer one).
func (f *footer) expire(id int) {
	if f.toast != nil && f.toast.id == id {
		f.toast = nil
	}
}

// alertFor raises the alert that steps regressed, with the steps the
// alert already named that are not among them; text words it.
func (f *footer) alertFor(steps []int, text func(steps []int) string) {
	if a := f.alert; a != nil {
		for _, n := range a.steps {
			if !slices.Contains(steps, n) {
				steps = append(steps, n)
			}
		}
	}
	f.raise(&alert{steps: steps, text: text(steps)})
}

// keepAlert narrows the alert to the steps still red, reworded by text;
// none left takes it down.
func (f *footer) keepAlert(red func(step int) bool, text func(steps []int) string) {
	a := f.alert
	if a == nil {
		return
	}
	var keep []int
	for _, n := range a.steps {
		if red(n) {
			keep = append(keep, n)
		}
	}
	switch {
	case len(keep) == 0:
		f.alert = nil
	case len(keep) < len(a.steps):
		f.alert = &alert{steps: keep, text: text(keep)}
	}
}

// raise shows a regression alert: a newer fact than a toast about the
// same steps, which therefore goes; any other toast stops offering enter,
// which goes to the red step now.
func (f *footer) raise(a *alert) {
	f.alert = a
	if f.toast == nil || a == nil {
		return
	}
	for _, n := range f.toast.steps {
		if slices.Contains(a.steps, n) {
			f.toast = nil
			return
		}
	}
	if f.toast.target != -1 {
		t := *f.toast
		t.target = -1
		if t.gone != "" {
			t.text = t.gone
		}
		f.toast = &t
	}
}

// dismiss closes the newest note: the alert, else the toast, else the
// place note (which was there from the start).
func (f *footer) dismiss() {
	switch {
	case f.alert != nil:
		f.alert = nil
	case f.toast != nil:
		f.toast = nil
	default:
		f.place = ""
	}
}

// View is the footer: its notes over the help line.
func (f footer) View() string { return strings.Join(f.lines(), "\n") }

// lines are the footer's lines, bottom up: the help line, then the notes.
func (f footer) lines() []string {
	var out []string
	w := f.width
	if f.confirm {
		out = append(out, f.bar(f.th.Hint, content.Msg("tui.hints.confirm"), w, 2)...)
	}
	if f.input != "" {
		out = append(out, f.bar(f.th.Hint, f.input, w, 2)...)
	}
	if f.question != "" {
		out = append(out, f.bar(f.th.Hint, f.question, w, 2)...)
	}
	if f.alert != nil {
		out = append(out, f.bar(f.th.Alert, checks.Error.Glyph()+" "+f.alert.text, w, 2)...)
	}
	if f.toast != nil {
		out = append(out, f.bar(f.th.Toast, f.toastText(w), w, toastLines)...)
	}
	if f.place != "" {
		st := f.th.Hint
		if f.placeBad {
			st = f.th.Alert
		}
		out = append(out, f.bar(st, f.place, w, placeLines)...)
	}
	return append(out, f.helpLines()...)
}

// toastText words the toast for a pane w wide: whole when it fits its
// lines, else with its variable parts shortened just enough (down to a
// few characters; past that, bar ends it with "..").
func (f footer) toastText(w int) string {
	t := f.toast
	fits := func(s string) bool { return len(page.Wrap(page.Untab(s), w-1, " ", " ")) <= toastLines }
	if t.words == nil || fits(t.text) {
		return t.text
	}
	const least = 12
	lo, hi := least, max(ansi.StringWidth(t.text), least)
	if !fits(t.words(lo)) {
		return t.words(lo)
	}
	for lo < hi { // the most room that fits
		mid := (lo + hi + 1) / 2
		if fits(t.words(mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return t.words(lo)
}

// bar wraps text to at most n lines of a full-width coloured bar.
func (f footer) bar(st lipgloss.Style, text string, w, n int) []string {
	lines := page.Wrap(page.Untab(text), w-1, " ", " ")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = ansi.Truncate(lines[n-1], w-3-page.AmbiguousRunes(lines[n-1]), "") + ".."
	}
	for i, l := range lines {
		if !f.th.NoColor() {
			l += strings.Repeat(" ", max(w-ansi.StringWidth(l)-page.AmbiguousRunes(l), 0))
		}
		lines[i] = st.Render(l)
	}
	return lines
}

// helpLines packs the screen's enabled keys into at most two lines.
// When they do not fit, the hints that give way first leave (giveWay), so
// the line never ends cut off (quit and help stay).
func (f footer) helpLines() []string {
	width := f.width - 1
	items := component.Enabled(f.keys.ShortHelp()...)
	lines, fits := f.packHelp(items, width)
	for !fits {
		worst, most := -1, 0
		for i, b := range items {
			if g := f.giveWay(b); g > most {
				worst, most = i, g
			}
		}
		if worst < 0 {
			break // bubbles/help cuts the last line with ".."
		}
		items = append(items[:worst:worst], items[worst+1:]...)
		lines, fits = f.packHelp(items, width)
	}
	h := f.help
	h.Width = width
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, " "+h.ShortHelpView(l))
	}
	return out
}

// packHelp fills the first help line and puts the rest on the second;
// fits is false when the second is too long.
func (f footer) packHelp(items []key.Binding, width int) (lines [][]key.Binding, fits bool) {
	var cur []key.Binding
	curW := 0
	sepW := ansi.StringWidth(f.help.ShortSeparator)
	for _, b := range items {
		iw := ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc)
		sep := 0
		if len(cur) > 0 {
			sep = sepW
		}
		if len(cur) > 0 && curW+sep+iw > width && len(lines) < 1 {
			lines = append(lines, cur)
			cur, curW, sep = nil, 0, 0
		}
		cur = append(cur, b)
		curW += sep + iw
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	return lines, curW <= width
}
