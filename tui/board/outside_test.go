package board

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/internal/termtext/termtexttest"
)

// A class record is written by a learner's labmate, or by anyone who can
// write the class namespace: its name, learner and failing checks carry
// a window title, a clipboard write and a screen clear. The board shows
// them escaped, in colour, and sends none.
func TestHostileRecordIsShownNotSent(t *testing.T) {
	const bad = termtexttest.Hostile
	c := fixtureClass(3)
	r := &c.Records[0]
	r.Name, r.Learner = bad, "learner-"+bad
	r.Steps[0] = class.StepRecord{Number: 1, Status: checks.Failed, Since: now.Add(-time.Minute),
		Failing: []class.FailingCheck{{ID: "check " + bad, Status: checks.Failed}}}
	runewidth.DefaultCondition.EastAsianWidth = false
	m := New(Options{Namespace: "workshop", Lab: "gpu-incident", Now: func() time.Time { return now }, Theme: "dark", Profile: termenv.ANSI256})
	m = step(m, tea.WindowSizeMsg{Width: 100, Height: 20})
	m = step(m, ClassMsg(c))
	termtexttest.AssertOnlyStyling(t, m.View(), "A␛]2;PWNED")
	i := 0
	for i < len(m.rows) && m.rows[i].Learner != r.Learner {
		i++
	}
	m.cursor = i
	m = press(m, "enter")
	termtexttest.AssertOnlyStyling(t, m.View(), termtexttest.Shown, "check "+termtexttest.Shown)
	if c.Records[0].Name != bad {
		t.Errorf("the board changed the class it was given: %q", c.Records[0].Name)
	}
}
