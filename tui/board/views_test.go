package board

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classstats"
)

// row is the first line of v starting with prefix, ANSI stripped.
func row(v, prefix string) string {
	for _, l := range strings.Split(ansi.Strip(v), "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// lineOf is the first line of v holding all of subs, ANSI stripped.
func lineOf(v string, subs ...string) string {
	for _, l := range strings.Split(ansi.Strip(v), "\n") {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(l, s)
		}
		if ok {
			return l
		}
	}
	return ""
}

// Keys switch views (number keys, tab and shift+tab round), and moving
// or sorting in a view other than the learners' table does nothing.
func TestKeysSwitchViews(t *testing.T) {
	m := step(newBoard(80, 24), classMsg{fixtureClass(30)})
	for _, tc := range []struct {
		key  string
		want View
	}{{"2", HelpFirst}, {"3", Funnel}, {"4", Steps}, {"tab", Learners}, {"shift+tab", Steps}, {"1", Learners}} {
		m = viewKey(m, tc.key)
		if m.Shown() != tc.want {
			t.Fatalf("after %s: view %d, want %d", tc.key, m.Shown(), tc.want)
		}
	}
	m = press(m, "3")
	before := m.sort
	if m = press(m, "s", "enter"); m.sort != before || m.detail != "" {
		t.Fatalf("s or enter acted in the funnel view: sort %d detail %q", m.sort, m.detail)
	}
	// The detail keeps its keys: a number does not leave it.
	m = press(m, "1", "enter", "2")
	if m.detail == "" || m.Shown() != Learners {
		t.Fatalf("a view key left the detail: detail %q view %d", m.detail, m.Shown())
	}
}

// The footer is the board's key map as a help line (ShortHelp): every
// key it names works in the view on screen, and the keys it leaves out
// for a view are disabled there, so they match nothing.
func TestFooterIsTheKeyMap(t *testing.T) {
	m := step(newBoard(100, 30), classMsg{fixtureClass(30)})
	for _, tc := range []struct {
		name string
		keys []string
		off  func(Model) []key.Binding
	}{
		{"learners", nil, func(m Model) []key.Binding { return []key.Binding{m.keys.Back} }},
		{"funnel", []string{"3"}, func(m Model) []key.Binding {
			return []key.Binding{m.keys.Up, m.keys.Down, m.keys.Open, m.keys.Sort, m.keys.Back}
		}},
		{"detail", []string{"enter"}, func(m Model) []key.Binding {
			return append([]key.Binding{m.keys.Next, m.keys.Prev}, m.keys.Views[:]...)
		}},
	} {
		v := press(m, tc.keys...)
		foot := ansi.Strip(v.footer())
		for _, b := range v.ShortHelp() {
			if !b.Enabled() {
				t.Errorf("%s: the footer shows %q, which does nothing", tc.name, b.Help().Key)
			}
			if h := b.Help().Key + " " + b.Help().Desc; !strings.Contains(foot, h) {
				t.Errorf("%s: footer %q lacks %q", tc.name, foot, h)
			}
		}
		for _, b := range tc.off(v) {
			if b.Enabled() {
				t.Errorf("%s: %v works where the footer leaves it out", tc.name, b.Keys())
			}
		}
	}
}

// viewKey sends tab, shift+tab or a rune key.
func viewKey(m Model, k string) Model {
	switch k {
	case "tab":
		return step(m, tea.KeyMsg{Type: tea.KeyTab})
	case "shift+tab":
		return step(m, tea.KeyMsg{Type: tea.KeyShiftTab})
	}
	return press(m, k)
}

// The funnel shows, per step, how many are on it and how many passed it,
// as the records say, with bars that grow with the counts.
func TestFunnelCounts(t *testing.T) {
	c := fixtureClass(30)
	m := press(step(newBoard(120, 32), classMsg{c}), "3")
	v := checkFits(t, m)
	s := classstats.Summarize(c.Records, 8)
	if s.Steps[3].On == 0 || s.Steps[6].On == 0 {
		t.Fatalf("fixture has nobody on steps 4 and 7: %+v", s.Steps)
	}
	for _, st := range s.Steps {
		on, passed := 0, 0
		for _, r := range c.Records {
			if r.Current == st.Number {
				on++
			}
			if p := r.Step(st.Number); p != nil && p.Status == checks.Passed {
				passed++
			}
		}
		l := row(v, fmt.Sprintf("  %2d ", st.Number))
		fields := strings.Fields(strings.NewReplacer("#", " ", "=", " ").Replace(l))
		if len(fields) < 2 || fields[len(fields)-2] != fmt.Sprint(on) || fields[len(fields)-1] != fmt.Sprint(passed) {
			t.Errorf("step %d: line %q, want %d on and %d passed", st.Number, l, on, passed)
		}
		if (on > 0) != strings.Contains(l, "#") || (passed > 0) != strings.Contains(l, "=") {
			t.Errorf("step %d: bars do not match counts %d/%d: %q", st.Number, on, passed, l)
		}
	}
	if l := lineOf(v, "완료"); !strings.Contains(l, fmt.Sprintf("완료 %d명", s.Done)) {
		t.Errorf("totals line %q, want %d done", l, s.Done)
	}
}

// Help first: the learners longest on one step, longest first, each
// with the step, the time, the lab's ID of the check that fails and the
// hint rung; it follows the class as it changes.
func TestHelpFirstFollowsTheClass(t *testing.T) {
	c := fixtureClass(30)
	m := press(step(newBoard(80, 24), classMsg{c}), "2")
	v := checkFits(t, m)
	q := classstats.HelpFirst(c.Records, now, 0)
	if len(q) < 3 {
		t.Fatalf("fixture queue: %+v", q)
	}
	first := row(v, "▸  1 ")
	w := q[0]
	for _, want := range []string{w.Name, fmt.Sprintf("%d단계", w.Step), Ago(w.For), w.Check} {
		if !strings.Contains(first, want) {
			t.Errorf("first in the queue %q lacks %q", first, want)
		}
	}
	// The first learner passes their step: they leave the queue and the
	// next moves up.
	for i := range c.Records {
		r := &c.Records[i]
		if r.Learner == w.Learner {
			r.Step(r.Current).Status = checks.Passed
			r.Step(r.Current).Failing = nil
			r.Current, r.CurrentSince = 0, now
		}
	}
	m = step(m, classMsg{c})
	v = checkFits(t, m)
	if strings.Contains(v, w.Name+" ") && lineOf(v, w.Name, fmt.Sprintf("%d단계", w.Step)) != "" {
		t.Errorf("%s still queued after passing:\n%s", w.Name, v)
	}
	if l := row(v, "▸  1 "); !strings.Contains(l, q[1].Name) {
		t.Errorf("first in the queue now %q, want %s", l, q[1].Name)
	}
	// A minute later every wait is a minute longer.
	later := now.Add(5 * time.Minute)
	m.opts.Now = func() time.Time { return later }
	m = step(m, tickMsg{})
	if l := row(m.View(), "▸  1 "); !strings.Contains(l, Ago(q[1].For+5*time.Minute)) {
		t.Errorf("after 5 minutes the first wait reads %q, want %s", l, Ago(q[1].For+5*time.Minute))
	}
}

// The steps view: per step the median and slowest time to pass and the
// check failing most now, with how many it fails for.
func TestStepsView(t *testing.T) {
	c := fixtureClass(30)
	m := press(step(newBoard(120, 32), classMsg{c}), "4")
	v := checkFits(t, m)
	s := classstats.Summarize(c.Records, 8)
	for _, st := range s.Steps {
		l := row(v, fmt.Sprintf("  %2d ", st.Number))
		if len(st.Times) > 0 && !strings.Contains(l, Ago(st.Median())+" ") {
			t.Errorf("step %d %q lacks the median %s", st.Number, l, Ago(st.Median()))
		}
		if len(st.Times) > 0 && !strings.Contains(l, Ago(st.Slowest())) {
			t.Errorf("step %d %q lacks the slowest %s", st.Number, l, Ago(st.Slowest()))
		}
		if len(st.Failing) > 0 && !strings.Contains(l, fmt.Sprintf("%s (%d명)", st.Failing[0].ID, st.Failing[0].N)) {
			t.Errorf("step %d %q lacks its most failing check %+v", st.Number, l, st.Failing[0])
		}
	}
}

// Every view fits a narrow pane and an empty class, without colour.
func TestViewsFitNarrowPanesAndEmptyClasses(t *testing.T) {
	for _, c := range []class.Class{fixtureClass(30), {Synced: true}, {}} {
		for _, sz := range [][2]int{{30, 6}, {50, 10}, {80, 24}} {
			for _, k := range []string{"1", "2", "3", "4"} {
				m := press(step(newBoard(sz[0], sz[1]), classMsg{c}), k)
				v := checkFits(t, m)
				if strings.ContainsRune(v, 0x1b) {
					t.Errorf("escape sequence without colour (%s, %v):\n%s", k, sz, v)
				}
			}
		}
	}
}
