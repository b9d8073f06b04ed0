package board

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
)

var update = flag.Bool("update", false, "rewrite docs/screens/board/*.txt")

var now = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// fixtureClass is a class of n learners at varied places in the lab:
// every third done with step k, some stuck long, one who just regressed;
// with 30 or more, as a class from a roster is: the last four never
// joined (three with the roster's Korean names, one by slot alone), one
// chose a Latin name.
func fixtureClass(n int) class.Class {
	var c class.Class
	names := []string{"김지민", "이서준", "박하은", "최도윤", "정수아", "강민준", "윤서연", "장예준", "임하린", "한지호"}
	absent := map[int]string{}
	if n >= 30 {
		absent = map[int]string{n - 4: "오하늘", n - 3: "서지우", n - 2: "노은별", n - 1: ""}
	}
	for i := range n {
		if name, ok := absent[i]; ok {
			id := fmt.Sprintf("learner-%02d", i+1)
			r := class.NewRecord(class.Identity{Learner: id, Lab: "gpu-incident"})
			r.Listed = name
			c.Records = append(c.Records, r)
			continue
		}
		passed := (i * 3) % 9
		if i%7 == 6 {
			passed = 8
		}
		r := class.Record{Schema: class.Schema, Learner: fmt.Sprintf("learner-%02d", i+1), Name: fmt.Sprintf("%s%d", names[i%len(names)], i/len(names)+1),
			Lab: "gpu-incident", Labmate: "v0.9.0", Updated: now.Add(-time.Duration(i) * 20 * time.Second)}
		for s := 1; s <= 8; s++ {
			st := checks.Waiting
			switch {
			case s <= passed:
				st = checks.Passed
			case s == passed+1:
				st = checks.Failed
			}
			sr := class.StepRecord{Number: s, Status: st, Since: now.Add(-time.Duration(i+1) * 2 * time.Minute)}
			if st == checks.Passed {
				sr.Arrived = now.Add(-time.Duration(90-s*8+i%5) * time.Minute)
				sr.FirstPassed = sr.Arrived.Add(time.Duration((s*3+i)%11+1) * time.Minute)
				sr.Attempts = (s + i) % 4
			}
			if st == checks.Failed {
				sr.Failing = []class.FailingCheck{{ID: fmt.Sprintf("step%d-check", s), Status: checks.Failed}}
				sr.Hints = i % 4
			}
			r.Steps = append(r.Steps, sr)
		}
		if passed < 8 {
			r.Current, r.CurrentSince = passed+1, now.Add(-time.Duration(i+1)*90*time.Second)
		}
		if i == 4 {
			r.Regression = &class.Regression{Step: passed + 1, From: checks.Passed, To: checks.Failed, At: now.Add(-time.Minute)}
		}
		if i == 11 {
			r.Name = "Alice"
		}
		c.Records = append(c.Records, r)
	}
	c.Synced = true
	return c
}

func newBoard(w, h int) Model {
	runewidth.DefaultCondition.EastAsianWidth = false
	m := New(Options{Namespace: "workshop", Lab: "gpu-incident", Now: func() time.Time { return now }, Theme: "dark", Profile: termenv.Ascii})
	return step(m, tea.WindowSizeMsg{Width: w, Height: h})
}

func step(m Model, msg tea.Msg) Model {
	tm, _ := m.Update(msg)
	return tm.(Model)
}

func press(m Model, ks ...string) Model {
	for _, k := range ks {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		m = step(m, msg)
	}
	return m
}

// checkFits fails when a line is wider than the board or the screen has
// more or fewer lines than its height.
func checkFits(t *testing.T, m Model) string {
	t.Helper()
	v := m.View()
	lines := strings.Split(v, "\n")
	if len(lines) != m.height {
		t.Errorf("%dx%d: %d lines", m.width, m.height, len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > m.width {
			t.Errorf("%dx%d: line %d is %d wide: %q", m.width, m.height, i+1, w, l)
		}
	}
	return v
}

// TestScreens draws the board of a class of 30 (stuck, regressed,
// absent, Korean- and Latin-named learners) and compares the screens
// with docs/screens/board/*.txt: the learners, by progress and by time
// stuck, and a learner's detail at 60x24 (the narrow tmux pane), 80x24
// and 160x50; who needs help first, the funnel and the steps at 60x24,
// 80x24 and 120x32; a room of twelve, four of them absent, whole at
// 60x16 and 80x16 in both orders; the board while the class cluster is
// away, at 60x24.
//
//	go test ./tui/board -run TestScreens -update
func TestScreens(t *testing.T) {
	c := fixtureClass(30)
	shots := map[string]Model{}
	for _, sz := range [][2]int{{60, 24}, {80, 24}, {160, 50}} {
		m := step(newBoard(sz[0], sz[1]), classMsg{c})
		shots[fmt.Sprintf("%dx%d.txt", sz[0], sz[1])] = m
		shots[fmt.Sprintf("%dx%d-stuck.txt", sz[0], sz[1])] = press(m, "s", "g")
		shots[fmt.Sprintf("%dx%d-detail.txt", sz[0], sz[1])] = press(m, "s", "g", "enter")
	}
	// The instructor's other views at the learner TUI's widths.
	for _, sz := range [][2]int{{60, 24}, {80, 24}, {120, 32}} {
		m := step(newBoard(sz[0], sz[1]), classMsg{c})
		if sz[0] == 120 { // the learners at 60 and 80 are above
			shots["120x32.txt"] = m
		}
		shots[fmt.Sprintf("%dx%d-help.txt", sz[0], sz[1])] = press(m, "2")
		shots[fmt.Sprintf("%dx%d-funnel.txt", sz[0], sz[1])] = press(m, "3")
		shots[fmt.Sprintf("%dx%d-steps.txt", sz[0], sz[1])] = press(m, "4")
	}
	// A room the screen holds whole, at the widths of a tmux pane and a
	// laptop's terminal: learners done, stuck and regressed under Korean
	// names, and the four who never joined (three by the roster's Korean
	// names, one by slot alone) last, in both orders.
	room := c
	room.Records = append(slices.Clone(c.Records[:8]), c.Records[26:]...)
	for _, w := range []int{60, 80} {
		m := step(newBoard(w, 16), classMsg{room})
		shots[fmt.Sprintf("%dx16-room.txt", w)] = m
		shots[fmt.Sprintf("%dx16-room-stuck.txt", w)] = press(m, "s")
	}
	lost := c
	lost.Link, lost.Err, lost.StaleSince = class.Lost, errors.New("connection refused"), now.Add(-3*time.Minute)
	shots["60x24-lost.txt"] = step(step(newBoard(60, 24), classMsg{c}), classMsg{lost})
	shots["60x24-keys.txt"] = press(step(newBoard(60, 24), classMsg{c}), "?")
	drawn := map[string]string{}
	for name, m := range shots {
		got := checkFits(t, m) + "\n"
		drawn[name] = got
		compareScreen(t, name, got)
	}
	classDocScreens(t, drawn)
}

// classScreen marks a capture of the board in docs/CLASS.md: the comment
// names the docs/screens/board file whose text the fenced block right
// after it holds.
var classScreen = regexp.MustCompile("(?s)<!-- screen: docs/screens/board/([^ ]+) -->\n```text\n(.*?)```\n")

// classDocScreens keeps the captures CLASS.md shows equal to the screens
// drawn (-update rewrites them).
func classDocScreens(t *testing.T, drawn map[string]string) {
	t.Helper()
	path := filepath.Join("..", "..", "docs", "CLASS.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	found := classScreen.FindAllSubmatchIndex(doc, -1)
	if len(found) == 0 {
		t.Fatal("docs/CLASS.md shows no board screen marked <!-- screen: docs/screens/board/NAME -->")
	}
	var want []byte
	last := 0
	for _, m := range found {
		name := string(doc[m[2]:m[3]])
		body, ok := drawn[name]
		if !ok {
			t.Fatalf("docs/CLASS.md shows docs/screens/board/%s, which TestScreens does not draw", name)
		}
		want = append(append(want, doc[last:m[4]]...), body...)
		last = m[5]
	}
	want = append(want, doc[last:]...)
	switch {
	case string(want) == string(doc):
	case *update:
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("docs/CLASS.md's board screens differ from the screens drawn; rerun with -update")
	}
}

func TestSortAndMarks(t *testing.T) {
	m := step(newBoard(80, 24), classMsg{fixtureClass(30)})
	rows := m.Rows()
	for i := 1; i < len(rows); i++ {
		if rows[i-1].Passed() < rows[i].Passed() {
			t.Fatalf("by progress: row %d has %d passed, row %d has %d", i-1, rows[i-1].Passed(), i, rows[i].Passed())
		}
	}
	m = press(m, "s", "g")
	rows = m.Rows()
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		if a.Current > 0 && b.Current > 0 && a.CurrentSince.After(b.CurrentSince) {
			t.Fatalf("by time stuck: %s (%v) before %s (%v)", a.Name, a.CurrentSince, b.Name, b.CurrentSince)
		}
		if a.Current == 0 && b.Current > 0 {
			t.Fatalf("a finished learner sorted before a stuck one")
		}
	}
	if !m.Stuck(rows[0]) {
		t.Fatalf("the longest on their step (%v) is not marked stuck", now.Sub(rows[0].CurrentSince))
	}
	regressed := 0
	for _, r := range rows {
		if m.Regressed(r) {
			regressed++
		}
	}
	if regressed != 1 {
		t.Fatalf("%d learners marked regressed, want 1", regressed)
	}
	// The cursor follows its learner across a re-sort and a new class.
	m = press(m, "down", "down")
	sel, _ := m.Selected()
	m = press(m, "s")
	m = step(m, classMsg{fixtureClass(30)})
	if got, _ := m.Selected(); got.Learner != sel.Learner {
		t.Fatalf("cursor moved from %s to %s", sel.Learner, got.Learner)
	}
	// Enter opens the detail with the failing check; esc goes back.
	m = press(m, "enter")
	v := m.View()
	if !strings.Contains(v, sel.Shown()) || m.detail == "" {
		t.Fatalf("detail does not show %s:\n%s", sel.Name, v)
	}
	if st := sel.Step(sel.Current); st != nil && len(st.Failing) > 0 && !strings.Contains(v, st.Failing[0].ID) {
		t.Fatalf("detail lacks the failing check %s:\n%s", st.Failing[0].ID, v)
	}
	if m = press(m, "esc"); m.detail != "" {
		t.Fatal("esc did not close the detail")
	}
}

func TestEmptyAndTinyBoards(t *testing.T) {
	m := newBoard(80, 24)
	if v := checkFits(t, m); !strings.Contains(v, "읽는 중") {
		t.Fatalf("before the first list:\n%s", v)
	}
	m = step(m, classMsg{class.Class{Synced: true}})
	if v := checkFits(t, press(m, "enter", "down", "s")); !strings.Contains(v, "학습자 기록이 없습니다") {
		t.Fatalf("empty class:\n%s", v)
	}
	m = step(newBoard(30, 5), classMsg{fixtureClass(30)})
	checkFits(t, m)
	checkFits(t, press(m, "enter"))
}

// Idle: after the first class only a minute tick is scheduled; a class
// after that re-arms the watch only.
func TestIdleBoardSchedulesOnlyTheMinuteTick(t *testing.T) {
	ch := make(chan class.Class, 1)
	m := New(Options{Classes: ch, Now: func() time.Time { return now.Add(30 * time.Second) }})
	if m.Init() == nil {
		t.Fatal("no watch command")
	}
	tm, cmd := m.Update(classMsg{fixtureClass(2)})
	if cmd == nil {
		t.Fatal("first class scheduled nothing")
	}
	tm, cmd = tm.Update(tickMsg{})
	if cmd == nil {
		t.Fatal("tick not re-armed")
	}
	_ = tm
}

// A record whose content is not believed (read through class.Collect, as
// the watch reads it) is marked, shows no step passed, and its detail
// says why, within a 60-column pane.
func TestFlaggedRecords(t *testing.T) {
	forged := `{"schema": 1, "learner": "learner-02", "lab": "gpu-incident", "name": "learner-02",
		"steps": [{"number": 1, "status": "passed", "since": "2026-12-01T09:00:00Z", "hints": 0}]}`
	objs := []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: class.ObjectName("learner-01", "gpu-incident")}, Data: map[string]string{class.DataKey: forged}},
		{ObjectMeta: metav1.ObjectMeta{Name: class.ObjectName("learner-03", "gpu-incident")}, Data: map[string]string{class.DataKey: "{"}},
	}
	c := class.Collect(objs, "gpu-incident")
	c.Synced = true
	m := step(newBoard(60, 20), classMsg{c})
	v := checkFits(t, m)
	for _, want := range []string{"learner-01", "위조 의심", "learner-03", "형식 오류"} {
		if !strings.Contains(v, want) {
			t.Errorf("board lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, checks.Passed.Glyph()) {
		t.Errorf("a flagged record shows a passed step:\n%s", v)
	}
	for _, r := range m.Rows() {
		if r.Passed() != 0 {
			t.Errorf("%s: %d steps passed", r.Learner, r.Passed())
		}
	}
	d := checkFits(t, press(m, "enter"))
	if words := strings.Join(strings.Fields(ansi.Strip(d)), " "); !strings.Contains(words, "위조 의심") || !strings.Contains(words, "learner-01 (learner-01)") ||
		!strings.Contains(words, "단계를 보이지 않습니다") {
		t.Errorf("detail of the forged record:\n%s", d)
	}
}

// A class that carries its own lab: the title names the lab and the
// version it carries, a learner still on an older version is marked
// 구판 (until they restart), and the detail says which version they run.
func TestBoardShowsTheLabVersionEachLearnerRuns(t *testing.T) {
	c := fixtureClass(3)
	c.Lab = class.LabArchive{ID: "gpu-incident", Version: "1.1.0"}
	for i := range c.Records {
		c.Records[i].LabVersion = "1.1.0"
	}
	c.Records[1].LabVersion = "1.0.0"
	m := step(newBoard(80, 24), ClassMsg(c))
	view := ansi.Strip(m.View())
	lines := strings.Split(view, "\n")
	if !strings.Contains(lines[0], "실습 gpu-incident 1.1.0") {
		t.Errorf("title %q does not name the class's lab and version", lines[0])
	}
	behind := 0
	for _, l := range lines {
		if strings.Contains(l, "구판") {
			behind++
			if !strings.Contains(l, c.Records[1].Name) {
				t.Errorf("구판 on the wrong row: %q", l)
			}
		}
	}
	if behind != 1 {
		t.Errorf("%d rows marked 구판, want 1:\n%s", behind, view)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("line of %d cells: %q", w, l)
		}
	}
	m = press(m, "down", "enter")
	if d := ansi.Strip(m.View()); !strings.Contains(d, "실습 버전 1.0.0") {
		t.Errorf("the detail of a learner on 1.0.0 does not say so:\n%s", d)
	}
}
