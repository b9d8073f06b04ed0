package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// fakeReplay is a ReplayControl that counts the calls it gets and says
// what it is told to.
type fakeReplay struct {
	mu                    sync.Mutex
	pauses, speeds, jumps int
	status                string
	done                  bool
	updates               chan struct{}
}

func newFakeReplay(status string) *fakeReplay {
	return &fakeReplay{status: status, updates: make(chan struct{}, 1)}
}

func (f *fakeReplay) TogglePause() { f.mu.Lock(); f.pauses++; f.mu.Unlock() }
func (f *fakeReplay) CycleSpeed()  { f.mu.Lock(); f.speeds++; f.mu.Unlock() }
func (f *fakeReplay) NextChange()  { f.mu.Lock(); f.jumps++; f.mu.Unlock() }

func (f *fakeReplay) Status() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

func (f *fakeReplay) Updates() <-chan struct{} { return f.updates }

func (f *fakeReplay) Done() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done
}

// finish ends the replay with a last status.
func (f *fakeReplay) finish(status string) {
	f.mu.Lock()
	f.done = true
	f.mu.Unlock()
	f.set(status)
}

// set changes the status and signals it, coalesced like trace.Replay.
func (f *fakeReplay) set(status string) {
	f.mu.Lock()
	f.status = status
	f.mu.Unlock()
	select {
	case f.updates <- struct{}{}:
	default:
	}
}

func (f *fakeReplay) calls() [3]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return [3]int{f.pauses, f.speeds, f.jumps}
}

func withReplay(r ReplayControl) func(*Options) {
	return func(o *Options) { o.Replay = r }
}

const (
	playing = "재생 중 | 참조 기록 | 10배속 | 3/72 | 0:01/0:28"
	paused  = "일시정지 | 참조 기록 | 10배속 | 9/72 | 0:06/0:28"
)

func replayHelp() []string {
	return []string{"s " + msg("tui.short.pause"), "+ " + msg("tui.short.speed"), "x " + msg("tui.short.next_change")}
}

func TestReplayKeysOnlyInReplay(t *testing.T) {
	live := testModel(t, 100, 30)
	for _, b := range []string{"pause", "speed", "next_change"} {
		if live.keys.Binding(b).Enabled() {
			t.Errorf("%s is enabled without a replay", b)
		}
	}
	for _, h := range replayHelp() {
		if strings.Contains(screen(live), h) {
			t.Errorf("help line offers %q without a replay", h)
		}
	}
	for _, k := range []string{"s", "+", "]", "x"} {
		if _, cmd := update(live, keyMsg(k)); cmd != nil {
			t.Errorf("%s without a replay returned a command", k)
		}
	}
	if s := screen(press(t, live, "?")); strings.Contains(s, msg("tui.keygroup.replay")) {
		t.Errorf("full help lists the replay keys without a replay:\n%s", s)
	}

	f := newFakeReplay(playing)
	m := testModel(t, 100, 30, withReplay(f))
	for _, h := range replayHelp() {
		if !strings.Contains(screen(m), h) {
			t.Errorf("help line in a replay lacks %q:\n%s", h, screen(m))
		}
	}
	if s := screen(press(t, m, "?", "G")); !strings.Contains(s, msg("tui.keygroup.replay")) || !strings.Contains(s, msg("tui.key.next_change")[:20]) {
		t.Errorf("full help in a replay lacks the replay keys:\n%s", s)
	}
	want := [3]int{}
	for _, c := range []struct {
		key string
		idx int
	}{{"s", 0}, {"+", 1}, {"]", 1}, {"x", 2}, {"s", 0}} {
		_, cmd := update(m, keyMsg(c.key))
		if got := f.calls(); got != want {
			t.Fatalf("%s: Update called the replay itself: %v, want %v", c.key, got, want)
		}
		if cmd == nil {
			t.Fatalf("%s: no command", c.key)
		}
		runCmd(cmd)
		want[c.idx]++
		if got := f.calls(); got != want {
			t.Fatalf("%s: calls after the command %v, want %v", c.key, got, want)
		}
	}

	// While the solution question is asked, only y/n/q work.
	m = press(t, m, "1")
	for range m.stepAt(1).Hints {
		m = press(t, m, "h")
	}
	m = press(t, m, "h")
	if !m.foot.confirm {
		t.Fatal("no solution question after all hints")
	}
	if m.keys.Pause.Enabled() {
		t.Error("pause enabled during the solution question")
	}
	if _, cmd := update(m, keyMsg("s")); cmd != nil {
		t.Error("s during the solution question returned a command")
	}
}

// At 60 columns the three replay keys do not fit beside the others: the
// least needed give way and the line still ends with quit, uncut.
func TestReplayHelpLineFits(t *testing.T) {
	for _, w := range []int{60, 80, 40} {
		m := testModel(t, w, 20, withReplay(newFakeReplay(playing)))
		m = press(t, m, "2")
		checkFits(t, m)
		rows := strings.Split(screen(m), "\n")
		last := rows[len(rows)-1]
		if !strings.HasSuffix(strings.TrimRight(last, " "), "q "+msg("tui.short.quit")) {
			t.Errorf("%d columns: help line does not end with quit: %q", w, last)
		}
		help := rows[len(rows)-2] + rows[len(rows)-1]
		if strings.Contains(help, "..") {
			t.Errorf("%d columns: help line cut: %q", w, help)
		}
		for _, h := range replayHelp() {
			if !strings.Contains(help, h) {
				t.Errorf("%d columns: replay key %q gave way: %q", w, h, help)
			}
		}
	}
}

func TestReplayStatusInHeader(t *testing.T) {
	f := newFakeReplay(playing)
	m := testModel(t, 60, 20, withReplay(f))
	if row := strings.Split(screen(m), "\n")[1]; !strings.Contains(row, msg("tui.loading")) {
		t.Errorf("before the first status, row 2 = %q", row)
	}
	var first tea.Msg
	for _, msg := range runCmd(m.Init()) {
		if _, ok := msg.(replayMsg); ok {
			first = msg
		}
	}
	if first == nil {
		t.Fatal("Init does not read the replay's status")
	}
	m, wait := update(m, first)
	checkFits(t, m)
	rows := strings.Split(screen(m), "\n")
	if !strings.HasPrefix(rows[0], "labmate ") || !strings.Contains(rows[1], playing) {
		t.Fatalf("header:\n%s", strings.Join(rows[:4], "\n"))
	}
	if !strings.Contains(rows[2], "GPU") {
		t.Errorf("the page title is not under the replay row: %q", rows[2])
	}

	// Nothing changes: the wait stays quiet (no tick).
	got := make(chan tea.Msg, 1)
	go func() { got <- wait() }()
	select {
	case msg := <-got:
		t.Fatalf("the wait returned %#v without a change", msg)
	case <-time.After(300 * time.Millisecond):
	}
	// Changes in a burst: the waiting read may wake between them (when is
	// the scheduler's choice), but signals are coalesced, so the burst is
	// read at most twice and the last read shows the latest status.
	f.set("a")
	f.set("b")
	f.set(paused)
	reads := 0
	for {
		var next tea.Msg
		select {
		case next = <-got:
		case <-time.After(30 * time.Second):
			t.Fatal("no redraw after the replay changed")
		}
		reads++
		rm, ok := next.(replayMsg)
		if !ok {
			t.Fatalf("after the change: %#v", next)
		}
		m, wait = update(m, next)
		if wait == nil {
			t.Fatal("the wait is not re-armed")
		}
		if rm.status == paused {
			break
		}
		if reads == 2 {
			t.Fatalf("the burst's second read shows %q, not the latest status", rm.status)
		}
		go func() { got <- wait() }()
	}
	if row := strings.Split(screen(m), "\n")[1]; !strings.Contains(row, paused) {
		t.Errorf("row 2 after the change = %q", row)
	}

	// A finished replay closes nothing in trace, but a control may: then
	// the wait ends for good.
	select {
	case <-f.updates: // the burst's leftover signal
	default:
	}
	close(f.updates)
	if msgs := runCmd(wait); len(msgs) != 1 {
		t.Fatalf("closed updates: %#v", msgs)
	} else if _, ok := msgs[0].(replayEndedMsg); !ok {
		t.Fatalf("closed updates: %#v", msgs[0])
	} else if _, cmd := update(m, msgs[0]); cmd != nil {
		t.Error("re-armed after the updates closed")
	}
}

// Reads are spaced: a replay that changes all the time is redrawn at most
// every replayStatusGap.
func TestReplayStatusReadsAreSpaced(t *testing.T) {
	f := newFakeReplay(playing)
	last := time.Now()
	f.set(paused)
	start := time.Now()
	msg := waitReplay(f, last)()
	if time.Since(start) < replayStatusGap-10*time.Millisecond {
		t.Errorf("read after %s, want about %s after the last one", time.Since(start), replayStatusGap)
	}
	if rm, ok := msg.(replayMsg); !ok || rm.status != paused {
		t.Errorf("got %#v", msg)
	}
	// Long after the last read, a change is read at once; soon after it,
	// it waits for the rest of the gap. (Decided on given times: how fast
	// this machine runs the read is not the question.)
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	if d := replayDelay(at.Add(-time.Second), at); d != 0 {
		t.Errorf("an isolated change waits %s", d)
	}
	if d := replayDelay(at.Add(-10*time.Millisecond), at); d != replayStatusGap-10*time.Millisecond {
		t.Errorf("a change 10 ms after the last read waits %s, want %s", d, replayStatusGap-10*time.Millisecond)
	}
}

// The status is text from outside the TUI: one row, clamped, no escapes.
func TestReplayStatusClampedAndSanitized(t *testing.T) {
	long := "일시정지 | " + strings.Repeat("아주 긴 기록 이름 ", 12) + "| 10배속\n둘째 줄\x1b[31m"
	for _, w := range []int{40, 60, 100} {
		m := testModel(t, w, 12, withReplay(newFakeReplay(long)))
		m, _ = update(m, replayMsg{status: long, at: time.Now()})
		checkFits(t, m)
		row := strings.Split(screen(m), "\n")[1]
		if !strings.Contains(row, "일시정지 |") || !strings.HasSuffix(strings.TrimRight(row, " "), "..") {
			t.Errorf("%d columns: replay row %q", w, row)
		}
		if strings.Contains(m.View(), "둘째 줄") || strings.Contains(m.View(), "\x1b[31m") {
			t.Errorf("%d columns: second line or escape of the status shown", w)
		}
	}
}

// Once the replay has ended, pause, speed and next change do nothing:
// they leave the help line and the full help, and their keys are inert.
func TestReplayKeysGoneWhenDone(t *testing.T) {
	f := newFakeReplay(playing)
	m := testModel(t, 100, 30, withReplay(f))
	m = press(t, m, "2")
	f.finish("재생 끝 | 참조 기록 | 10배속 | 72/72 | 0:28/0:28")
	msgs := runCmd(replayBar{ctl: f}.Init())
	if len(msgs) != 1 {
		t.Fatalf("reading the replay gave %v", msgs)
	}
	m = send(t, m, msgs[0])
	for _, b := range []string{"pause", "speed", "next_change"} {
		if m.keys.Binding(b).Enabled() {
			t.Errorf("%s enabled after the replay ended", b)
		}
	}
	for _, h := range replayHelp() {
		if strings.Contains(screen(m), h) {
			t.Errorf("help line offers %q after the end:\n%s", h, screen(m))
		}
	}
	for _, k := range []string{"s", "+", "]", "x"} {
		if _, cmd := update(m, keyMsg(k)); cmd != nil {
			runCmd(cmd)
		}
	}
	if got := f.calls(); got != [3]int{} {
		t.Errorf("keys after the end reached the replay: %v", got)
	}
	if s := screen(press(t, m, "?", "G")); strings.Contains(s, msg("tui.keygroup.replay")) {
		t.Errorf("full help lists the replay keys after the end:\n%s", s)
	}
	if !strings.Contains(screen(m), "72/72") {
		t.Errorf("the replay's last status is not shown:\n%s", screen(m))
	}
}
