package tui

import (
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/content"
)

// jumper reads page numbers from digit keys. With up to nine steps a
// digit goes to its page at once; with more, digits add up to a number,
// which is gone to as soon as no longer number starts with them ("1"
// waits for "12" in a twelve-step lab; "3" goes at once), or on enter.
type jumper struct {
	// typed are the digits typed so far of a page number that more
	// digits could still extend.
	typed string
	toast int // the id of the toast showing them
}

// digit adds a digit key in a lab whose last page is last. now says to
// go to page n at once; else, while typed is not empty, n is the number
// typed so far, which more digits may still extend.
func (j *jumper) digit(d string, last int) (n int, now bool) {
	typed := j.typed + d
	if n, err := strconv.Atoi(typed); err != nil || n > last {
		typed = d // a new number begins
	}
	j.typed = ""
	n, err := strconv.Atoi(typed)
	switch {
	case err != nil || n > last:
		return 0, false
	case n == 0 || n*10 > last:
		return n, true
	}
	j.typed = typed
	return n, false
}

// waiting reports whether typed digits are still on screen: their toast
// (of the footer f) has not gone or been replaced. A number no longer
// shown is forgotten.
func (j *jumper) waiting(f footer) bool {
	if j.typed != "" && !f.showing(j.toast) {
		j.typed = ""
	}
	return j.typed != ""
}

// take returns the number typed so far and forgets it (ok: there was one).
func (j *jumper) take() (page int, ok bool) {
	typed := j.typed
	j.typed = ""
	if typed == "" {
		return 0, false
	}
	// digit kept only digits that parsed, so this does not fail; if it
	// did, going nowhere beats going to the introduction.
	n, err := strconv.Atoi(typed)
	return n, err == nil
}

// jump takes a digit key: goes to its page, or shows the number typed so
// far while it may still grow.
func (m *Model) jump(d string) tea.Cmd {
	last := m.pages - 1
	n, now := m.jumps.digit(d, last)
	switch {
	case now:
		return m.goPage(n)
	case m.jumps.typed == "":
		return nil
	}
	cmd := m.foot.showToast(toast{text: content.Msg("tui.jump.typed", "typed", m.jumps.typed, "max", last), target: n})
	m.jumps.toast = m.foot.newestToast()
	return cmd
}
