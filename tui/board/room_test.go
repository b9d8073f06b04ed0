package board

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
)

// What an instructor with a room reads off the board at a glance.

// Learners who never joined sort last in both orders: before, their
// zero "on the step since" sorted them as the longest stuck, and 27 of
// them hid the one who needed help.
func TestAbsentLearnersSortLast(t *testing.T) {
	m := step(newBoard(80, 24), classMsg{fixtureClass(30)})
	for _, order := range []string{"progress", "stuck"} {
		rows := m.Rows()
		first := slices.IndexFunc(rows, func(r class.Record) bool { return r.Absent() })
		if first < 0 {
			t.Fatal("the fixture has no absent learner")
		}
		for _, r := range rows[first:] {
			if !r.Absent() {
				t.Errorf("by %s: %s after an absent learner", order, r.Shown())
			}
		}
		if order == "progress" {
			m = press(m, "s")
		}
	}
	if r := m.Rows()[0]; !m.Stuck(r) || r.Absent() {
		t.Errorf("by time stuck the first row is %s (stuck %v)", r.Shown(), m.Stuck(r))
	}
}

// Names sort as a Korean reader orders them: Hangul in 가나다 order,
// before Latin names and slots; numbers in a name by value.
func TestNamesSortAsKoreanReadersExpect(t *testing.T) {
	var c class.Class
	for i, name := range []string{"learner-10", "Bob", "이서준", "learner-2", "김지민", "alice", "가나"} {
		c.Records = append(c.Records, class.Record{Learner: fmt.Sprintf("l%d", i), Name: name, Lab: "gpu-incident",
			Steps: []class.StepRecord{{Number: 1, Status: checks.Failed}}, Current: 1, CurrentSince: now})
	}
	c.Synced = true
	m := step(newBoard(80, 24), classMsg{c})
	var got []string
	for _, r := range m.Rows() {
		got = append(got, r.Shown())
	}
	want := []string{"가나", "김지민", "이서준", "alice", "Bob", "learner-2", "learner-10"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// At 60 columns (a tmux pane beside the instructor's shell) every view
// fits, and nothing the instructor counts on is cut: each row's marks,
// the title's counts and sort, whole keys in the footer with ? and q,
// a check's "외 N개" and a step's "(N명)".
func TestEveryViewFits60ColumnsWithoutCuttingAMarkOrACount(t *testing.T) {
	c := fixtureClass(30)
	// The learner longest on a step: first in the queue, on the table's
	// first page by time stuck, with two marks (정체 and 중복).
	r3 := &c.Records[25]
	r3.Shared = true
	r3.Step(r3.Current).Failing = []class.FailingCheck{{ID: "a-very-long-check-id-that-cannot-fit", Status: checks.Failed},
		{ID: "second", Status: checks.Failed}, {ID: "third", Status: checks.Failed}}
	m := step(newBoard(60, 24), classMsg{c})
	for _, k := range []string{"1", "s", "2", "3", "4", "1", "enter", "esc", "?"} {
		m = press(m, k)
		v := ansi.Strip(checkFits(t, m))
		lines := strings.Split(v, "\n")
		foot := lines[len(lines)-1]
		for _, want := range []string{"? " + content.Msg("class.board.key.help"), "q " + content.Msg("class.board.key.quit")} {
			if !strings.Contains(foot, want) {
				t.Errorf("after %s: footer %q lacks %q", k, foot, want)
			}
		}
		if m.keysShown || m.detail != "" {
			continue
		}
		title := lines[0]
		for _, want := range []string{"학습자 30명", "정체 ", "퇴보 "} {
			if !strings.Contains(title, want) {
				t.Errorf("after %s: title %q lacks %q", k, title, want)
			}
		}
		if m.view == Learners && !strings.Contains(title, "정렬: ") {
			t.Errorf("title %q lacks the sort", title)
		}
		switch m.view {
		case Learners:
			for _, r := range m.Rows()[m.top:min(len(m.Rows()), m.top+m.listRows())] {
				l := lineOf(v, r.Shown()+" ")
				for _, mk := range m.marks(r) {
					if !strings.Contains(l, mk) {
						t.Errorf("%s's row %q lacks its mark %q", r.Shown(), l, mk)
					}
				}
			}
		case HelpFirst:
			if l := lineOf(v, "a-ver"); !strings.Contains(l, "외 2개") {
				t.Errorf("the queue's row of a long check cuts its count: %q\n%s", l, v)
			}
		case Steps:
			for _, l := range lines[2 : len(lines)-1] {
				if strings.Contains(l, "(") && !strings.HasSuffix(strings.TrimSpace(l), "명)") {
					t.Errorf("a step's count is cut: %q", l)
				}
			}
		}
	}
}

// The footer leaves keys out whole, from the least wanted, never ? and
// q; ? lists every key, esc closes it.
func TestFooterKeepsWholeKeysAndHelpListsThemAll(t *testing.T) {
	m := step(newBoard(36, 20), classMsg{fixtureClass(30)})
	foot := ansi.Strip(m.footer())
	if !strings.HasSuffix(foot, "q "+content.Msg("class.board.key.quit")) || !strings.Contains(foot, "? ") || ansi.StringWidth(foot) > 36 {
		t.Errorf("footer at 36 columns: %q", foot)
	}
	for _, b := range m.ShortHelp() {
		h := b.Help()
		if strings.Contains(foot, h.Key+" ") != strings.Contains(foot, h.Key+" "+h.Desc) {
			t.Errorf("footer %q cuts %q", foot, h.Key+" "+h.Desc)
		}
	}
	m = step(newBoard(80, 30), classMsg{fixtureClass(30)})
	help := ansi.Strip(press(m, "?").View())
	for _, col := range m.FullHelp() {
		for _, b := range col {
			if !strings.Contains(help, b.Help().Desc) {
				t.Errorf("? lacks %q:\n%s", b.Help().Desc, help)
			}
		}
	}
	if m = press(m, "?", "esc"); m.keysShown {
		t.Error("esc did not close the keys")
	}
}

// A learner's detail longer than the pane scrolls (j, k, G), its first
// line staying; it opens from the help-first queue too, on the learner
// under the queue's cursor.
func TestDetailScrollsAndOpensFromHelpFirst(t *testing.T) {
	c := fixtureClass(30)
	m := step(newBoard(60, 12), classMsg{c})
	m = press(m, "2", "j", "enter")
	r, ok := m.Detail()
	if !ok || r.Learner != m.queue[1].Learner {
		t.Fatalf("enter in the queue opened %+v, want the second in the queue (%s)", r.Learner, m.queue[1].Learner)
	}
	v := ansi.Strip(checkFits(t, m))
	if !strings.HasPrefix(v, r.Shown()) || strings.Contains(v, "8 롤아웃") {
		t.Fatalf("detail before scrolling:\n%s", v)
	}
	m = press(m, "G")
	v = ansi.Strip(checkFits(t, m))
	if !strings.HasPrefix(v, r.Shown()) || !strings.Contains(v, " 8 ") {
		t.Fatalf("the last step is not reachable by scrolling:\n%s", v)
	}
	m = press(m, "g")
	if m.scroll != 0 {
		t.Errorf("g left the detail scrolled by %d", m.scroll)
	}
	if m = press(m, "esc"); m.detail != "" || m.view != HelpFirst {
		t.Errorf("esc went to detail %q view %d, want back to the queue", m.detail, m.view)
	}
}

// While the class cluster is away the title says so and since when
// ("as of hh:mm"), and a line under it says what the rows are; with
// credentials it refuses, it says those are the wrong ones. Back, the
// title is the counts alone.
func TestTitleSaysLostAndAsOfWhileStale(t *testing.T) {
	c := fixtureClass(30)
	m := step(newBoard(60, 24), classMsg{c})
	lost := c
	lost.Link, lost.Err, lost.StaleSince = class.Lost, errors.New("refused"), time.Date(2026, 12, 1, 9, 42, 0, 0, time.UTC)
	m = step(m, classMsg{lost})
	v := ansi.Strip(checkFits(t, m))
	lines := strings.Split(v, "\n")
	if !strings.Contains(lines[0], "연결 끊김 09:42 기준") || !strings.Contains(lines[0], "학습자 30명") {
		t.Errorf("title while lost: %q", lines[0])
	}
	if !strings.Contains(v, "09:42 의 모습") {
		t.Errorf("no line says the rows are as of 09:42:\n%s", v)
	}
	denied := c
	denied.Link, denied.Err = class.Denied, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("x"))
	v = ansi.Strip(checkFits(t, step(m, classMsg{denied})))
	if !strings.Contains(v, "접근 거부") || !strings.Contains(v, "강사의") || !strings.Contains(v, "거부합니다 (401/403)") {
		t.Errorf("board with refused credentials:\n%s", v)
	}
	v = ansi.Strip(checkFits(t, step(m, classMsg{c})))
	if strings.Contains(v, "연결 끊김") || strings.Contains(v, "기준") {
		t.Errorf("the title still says stale after the return:\n%s", v)
	}
}

// Two labmates on one class file: the row is marked 중복 and the
// detail says what it means.
func TestSharedRecordIsMarked(t *testing.T) {
	c := fixtureClass(5)
	c.Records[2].Shared = true
	m := step(newBoard(80, 24), classMsg{c})
	if l := lineOf(m.View(), c.Records[2].Shown()); !strings.Contains(l, "중복") {
		t.Errorf("row %q lacks 중복", l)
	}
	for i, r := range m.Rows() {
		if r.Learner == c.Records[2].Learner {
			m.cursor = i
		}
	}
	if d := ansi.Strip(press(m, "enter").View()); !strings.Contains(d, "교실 파일 하나로") {
		t.Errorf("detail:\n%s", d)
	}
}
