package board

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/class"
)

const plugin = "따옴표 없는 플러그인 이름"

// roomClass is the 30 learners of fixtureClass where a room keeps
// moving: learner-03 raised a hand with a note (its text holding a
// terminal escape the board must not pass on) and learner-11's hand was
// acknowledged; learners 04, 10 and 13, all on step 1, make the same
// named mistake; learner-02 caught its first three steps up.
func roomClass() class.Class {
	c := fixtureClass(30)
	at := func(i int) *class.Record { return &c.Records[i] }
	hand := func(r *class.Record, up time.Duration, note string) *class.Hand {
		s := r.Step(r.Current)
		h := &class.Hand{Step: r.Current, Raised: now.Add(-up), Note: note, Hints: s.Hints}
		for _, f := range s.Failing {
			h.Checks = append(h.Checks, class.HandCheck{ID: f.ID, Message: "ExecStart= 줄의 드라이버 경로가 /usr/bin/nvidia-smi 가 아닙니다"})
		}
		s.Hands = 1
		return h
	}
	at(2).Hand = hand(at(2), 3*time.Minute, "로그에 \x1b[2J 가 보여요")
	at(10).Hand = hand(at(10), 7*time.Minute, "")
	at(10).Hand.Acked = now.Add(-6 * time.Minute)
	at(10).Step(at(10).Current).AckSeconds = []int{60}
	for _, i := range []int{3, 9, 12} {
		at(i).Step(at(i).Current).Mistake = plugin
	}
	for n := 1; n < at(1).Current; n++ {
		at(1).Step(n).CaughtUp = true
	}
	return c
}

func newRoomBoard(w, h int, ack Acknowledger) Model {
	runewidth.DefaultCondition.EastAsianWidth = false
	m := New(Options{Namespace: "workshop", Lab: "gpu-incident", Now: func() time.Time { return now }, Theme: "dark", Profile: termenv.Ascii,
		Acknowledge: ack})
	m = step(m, tea.WindowSizeMsg{Width: w, Height: h})
	return step(m, classMsg{roomClass()})
}

// The help-first view of a room with raised hands, named mistakes and a
// caught-up learner at 60 and 80 columns, against
// docs/screens/board/room-*.txt (go test ./tui/board -run TestRoomScreens
// -update): hands first, the one not yet acknowledged at the top, each
// with its step, note and failing check; then "3명: …" under its step.
func TestRoomScreens(t *testing.T) {
	for _, w := range []int{60, 80} {
		m := press(newRoomBoard(w, 24, func(string, string, class.Hand) error { return nil }), "2")
		got := checkFits(t, m) + "\n"
		plain := stripped(got)
		if strings.Contains(got, "\x1b[2J") {
			t.Errorf("%d: a learner's note reached the terminal with its escape", w)
		}
		first, second := strings.Index(plain, "박하은1"), strings.Index(plain, "김지민2")
		if first < 0 || second < 0 || first > second {
			t.Errorf("%d: the hand not yet acknowledged (박하은1) must come before the acknowledged one (김지민2):\n%s", w, plain)
		}
		for _, want := range []string{"[손]", "[확인]", "1단계 3명: " + plain3(w), "따라잡은 학습자: 1단계 1명", "메모:", "ExecStart"} {
			if !strings.Contains(plain, want) {
				t.Errorf("%d: the help-first view lacks %q:\n%s", w, want, plain)
			}
		}
		compareScreen(t, "room-"+strconv.Itoa(w)+"x24.txt", got)
		// The detail of the learner whose hand waits.
		m = press(cursorTo(t, m, "learner-03"), "enter")
		compareScreen(t, "hand-detail-"+strconv.Itoa(w)+"x24.txt", checkFits(t, m)+"\n")
	}
}

// compareScreen compares got with docs/screens/board/name (-update
// writes it).
func compareScreen(t *testing.T, name, got string) {
	t.Helper()
	name = filepath.Join("..", "..", "docs", "screens", "board", name)
	if *update {
		if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s drifted; rerun with -update after a deliberate change.\nwant:\n%s\ngot:\n%s", name, want, got)
	}
}

// plain3 is as much of the mistake's label as a pane w wide shows.
func plain3(w int) string {
	if w < 70 {
		return "따옴표"
	}
	return plugin
}

func stripped(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.TrimRight(ansi.Strip(l), " "))
	}
	return strings.Join(out, "\n")
}

// The acknowledge key sends the hand of the learner under the
// help-first queue's cursor, shows it acknowledged at once and sends
// nothing for a learner with no hand up or one already acknowledged
// (the view says why); a failed send is said on the view and may be
// tried again. Another key takes the note down.
func TestAcknowledgeTheChosenHand(t *testing.T) {
	var sent []string
	fail := false
	ack := func(learner, lab string, h class.Hand) error {
		sent = append(sent, learner+"/"+lab)
		if fail {
			return os.ErrPermission
		}
		return nil
	}
	m := press(newRoomBoard(80, 24, ack), "2")
	if !m.keys.Ack.Enabled() {
		t.Fatal("the acknowledge key is off in the help-first view")
	}
	// The learner on top of the queue has no hand up.
	if m.queue[0].Learner == "learner-03" || m.queue[0].Learner == "learner-11" {
		t.Fatalf("the fixture's longest waiting learner has a hand: %s", m.queue[0].Learner)
	}
	m = pressRun(m, "a")
	if v := stripped(m.View()); len(sent) != 0 || !strings.Contains(v, "손을 들지 않았습니다") {
		t.Fatalf("a learner without a hand: sent %v\n%s", sent, v)
	}
	m = cursorTo(t, m, "learner-11")
	if v := stripped(m.View()); strings.Contains(v, "손을 들지 않았습니다") {
		t.Errorf("moving the cursor kept the note:\n%s", v)
	}
	m = pressRun(m, "a")
	if v := stripped(m.View()); len(sent) != 0 || !strings.Contains(v, "이미 확인했습니다") {
		t.Fatalf("an acknowledged hand: sent %v\n%s", sent, v)
	}
	m = cursorTo(t, m, "learner-03")
	fail = true
	m = pressRun(m, "a")
	if len(sent) != 1 || sent[0] != "learner-03/gpu-incident" {
		t.Fatalf("sent %v, want learner-03's hand", sent)
	}
	if !strings.Contains(stripped(m.View()), "확인을 보내지 못했습니다") {
		t.Errorf("a failed acknowledgement is not said:\n%s", stripped(m.View()))
	}
	fail = false
	m = pressRun(m, "a")
	if len(sent) != 2 || sent[1] != "learner-03/gpu-incident" {
		t.Fatalf("sent %v, want learner-03's hand again after the failure", sent)
	}
	if v := stripped(m.View()); strings.Contains(v, "[손]") || strings.Contains(v, "보내지 못했습니다") {
		t.Errorf("the hand acknowledged still waits:\n%s", v)
	}
	m = pressRun(m, "a")
	if len(sent) != 2 {
		t.Errorf("sent %v: learner-03's hand was acknowledged", sent)
	}
	// In the learners' table the key does nothing.
	if m = press(m, "1"); m.keys.Ack.Enabled() {
		t.Error("the acknowledge key is on in the learners' table")
	}
}

// A learner's detail shows its hand (step, how long up, acknowledged or
// not, the note, cleaned); a acknowledges it from there, and the key
// leaves once it is.
func TestDetailShowsAndAcknowledgesTheHand(t *testing.T) {
	var sent []string
	ack := func(learner, lab string, h class.Hand) error { sent = append(sent, learner); return nil }
	m := press(cursorTo(t, press(newRoomBoard(60, 24, ack), "2"), "learner-03"), "enter")
	v := flat(stripped(m.View()))
	for _, want := range []string{"손 듦: ", "3분 전", "[강사 확인 전]", "메모: 로그에"} {
		if !strings.Contains(v, want) {
			t.Errorf("the detail lacks %q:\n%s", want, stripped(m.View()))
		}
	}
	if strings.Contains(m.View(), "\x1b[2J") || !m.keys.Ack.Enabled() {
		t.Errorf("escape passed, or no acknowledge key (%v)", m.keys.Ack.Enabled())
	}
	m = pressRun(m, "a")
	if len(sent) != 1 || sent[0] != "learner-03" || !strings.Contains(stripped(m.View()), "[강사 확인함]") || m.keys.Ack.Enabled() {
		t.Errorf("sent %v, key on %v:\n%s", sent, m.keys.Ack.Enabled(), stripped(m.View()))
	}
	// A learner without a hand: no hand line, no key.
	m = press(press(m, "esc"), "k")
	if m = press(m, "enter"); strings.Contains(stripped(m.View()), "손 듦") || m.keys.Ack.Enabled() {
		t.Errorf("a learner without a hand:\n%s", stripped(m.View()))
	}
}

// cursorTo moves the help-first queue's cursor down to learner.
func cursorTo(t *testing.T, m Model, learner string) Model {
	t.Helper()
	for range len(m.queue) {
		if m.queue[m.qcursor].Learner == learner {
			return m
		}
		m = press(m, "j")
	}
	t.Fatalf("%s is not in the help-first queue", learner)
	return m
}

// flat is text with every run of blanks and line breaks as one space.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// pressRun presses k and feeds the board what the command it returned
// says.
func pressRun(m Model, k string) Model {
	tm, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
	m = tm.(Model)
	if cmd != nil {
		if msg := cmd(); msg != nil {
			m = step(m, msg)
		}
	}
	return m
}
