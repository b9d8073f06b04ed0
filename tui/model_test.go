package tui

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/tui/internal/fixture"
)

func TestNavigation(t *testing.T) {
	m := testModel(t, 80, 24)
	if m.page != 0 {
		t.Fatalf("starts on page %d, want the introduction", m.page)
	}
	if m.keys.Prev.Enabled() {
		t.Error("prev is enabled on the first page")
	}
	m = press(t, m, "n")
	if m.page != 1 || !strings.Contains(screen(m), "1/2 사고 노드의 주 containerd 설정 재현") {
		t.Fatalf("after n: page %d\n%s", m.page, screen(m))
	}
	m = press(t, m, "n", "n", "n")
	if m.page != 2 {
		t.Fatalf("n past the end: page %d, want 2", m.page)
	}
	if m.keys.Next.Enabled() {
		t.Error("next is enabled on the last page")
	}
	if strings.Contains(screen(m), "n "+msg("tui.short.next")) {
		t.Error("help line offers next on the last page")
	}
	m = press(t, m, "p")
	if m.page != 1 {
		t.Fatalf("after p: page %d, want 1", m.page)
	}
	// Keys typed faster than they are read arrive as one message.
	m = send(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("np")})
	if m.page != 1 {
		t.Fatalf("after batched np: page %d, want 1", m.page)
	}
}

func TestJumpKeys(t *testing.T) {
	m := testModel(t, 80, 24)
	m = press(t, m, "2")
	if m.page != 2 {
		t.Fatalf("2: page %d", m.page)
	}
	m = press(t, m, "9") // the fixture lab has two steps
	if m.page != 2 {
		t.Fatalf("9 in a two-step lab moved to page %d", m.page)
	}
	m = press(t, m, "0")
	if m.page != 0 || !strings.Contains(screen(m), "GPU 사고 재현") {
		t.Fatalf("0: page %d", m.page)
	}
	if got := m.keys.Jump.Help().Key; got != "0-2" {
		t.Errorf("jump help key = %q, want 0-2", got)
	}
}

func TestScrollKeepsPagePosition(t *testing.T) {
	m := testModel(t, 60, 20)
	m = press(t, m, "2", "j", "j", "j")
	if m.pg.vp.YOffset != 3 {
		t.Fatalf("after jjj: offset %d", m.pg.vp.YOffset)
	}
	m = press(t, m, "1", "2")
	if m.pg.vp.YOffset != 3 {
		t.Errorf("back on page 2: offset %d, want 3", m.pg.vp.YOffset)
	}
	m = press(t, m, "G")
	if !m.pg.vp.AtBottom() {
		t.Error("G did not reach the bottom")
	}
	m = press(t, m, "g")
	if m.pg.vp.YOffset != 0 {
		t.Error("g did not reach the top")
	}
}

func TestHintLadder(t *testing.T) {
	var mu sync.Mutex
	var saved []HintProgress
	m := testModel(t, 80, 30, func(o *Options) {
		o.OnProgress = func(step, seen int, sol bool) error {
			mu.Lock()
			defer mu.Unlock()
			if step != 1 {
				t.Errorf("progress for step %d", step)
			}
			saved = append(saved, HintProgress{seen, sol})
			return nil
		}
	})
	lab := fixture.Lab()
	m = press(t, m, "1", "h")
	if got := m.hints.progress[1]; got.Seen != 1 || got.Solution {
		t.Fatalf("after one h: %+v", got)
	}
	if s := screen(m); !strings.Contains(s, lab.Steps[0].Hints[0]) || strings.Contains(s, lab.Steps[0].Hints[1]) {
		t.Fatalf("first hint not shown alone:\n%s", s)
	}
	m = press(t, m, "h")
	if !strings.Contains(screen(m), "SystemdCgroup 은 따옴표 없는 true") {
		t.Fatalf("second hint missing:\n%s", screen(m))
	}
	// Hints are used up: the next h asks before showing the solution.
	m = press(t, m, "h")
	if !m.foot.confirm || m.hints.progress[1].Solution {
		t.Fatalf("third h: confirm=%v progress=%+v", m.foot.confirm, m.hints.progress[1])
	}
	if m.keys.Next.Enabled() || !m.keys.Yes.Enabled() || !m.keys.No.Enabled() {
		t.Error("while asking, only yes/no (and quit) may be enabled")
	}
	if !strings.Contains(screen(m), "y "+msg("tui.short.yes")) {
		t.Errorf("help line does not offer y:\n%s", screen(m))
	}
	m = press(t, m, "n") // no: not the next step
	if m.foot.confirm || m.page != 1 || m.hints.progress[1].Solution {
		t.Fatalf("n while asking: confirm=%v page=%d %+v", m.foot.confirm, m.page, m.hints.progress[1])
	}
	m = press(t, m, "h", "y")
	if !m.hints.progress[1].Solution {
		t.Fatal("y did not open the solution")
	}
	if !strings.Contains(screen(press(t, m, "G")), "imports = [\"/etc/containerd/conf.d/*.toml\"]") {
		t.Fatalf("solution not rendered:\n%s", screen(m))
	}
	mu.Lock()
	defer mu.Unlock()
	want := []HintProgress{{1, false}, {2, false}, {2, true}}
	if len(saved) != len(want) {
		t.Fatalf("OnProgress calls = %+v, want %+v", saved, want)
	}
	for i := range want {
		if saved[i] != want[i] {
			t.Errorf("OnProgress call %d = %+v, want %+v", i, saved[i], want[i])
		}
	}
}

func TestHintProgressRestored(t *testing.T) {
	m := testModel(t, 80, 30, func(o *Options) {
		o.Progress = map[int]HintProgress{2: {Seen: 2}}
	})
	m = press(t, m, "2")
	s := screen(m)
	lab := fixture.Lab()
	if !strings.Contains(s, lab.Steps[1].Hints[0]) || !strings.Contains(s, lab.Steps[1].Hints[1]) {
		t.Fatalf("restored hints not shown:\n%s", s)
	}
	if got := m.keys.Hint.Help().Desc; got != msg("tui.short.hint", "n", 3, "total", 3) {
		t.Errorf("hint key says %q", got)
	}
	if p := m.Progress()[2]; p.Seen != 2 {
		t.Errorf("Progress() = %+v", p)
	}
}

func TestObservedToggle(t *testing.T) {
	m := testModel(t, 80, 30)
	m = press(t, m, "o")
	if m.observed {
		t.Fatal("observed view opened on the introduction")
	}
	m = press(t, m, "2", "o")
	s := screen(m)
	for _, want := range []string{"드롭인이 정의한 런타임", "nvidia", `"true" (문자열)`, "dropin.systemd_cgroup"} {
		if !strings.Contains(s, want) {
			t.Errorf("observed view lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "## 할 일") || strings.Contains(s, "할 일") {
		t.Error("observed view still shows the step text")
	}
	m = press(t, m, "o")
	if m.observed || !strings.Contains(screen(m), "할 일") {
		t.Fatal("o did not go back to the step text")
	}
	m = press(t, m, "o", "esc")
	if m.observed {
		t.Fatal("esc did not close the observed view")
	}
}

func TestFailedCheckShowsExpectedObservedWhere(t *testing.T) {
	m := testModel(t, 100, 40)
	m = press(t, m, "2", "G")
	s := screen(m)
	for _, want := range []string{
		"✗ 미통과",
		msg("tui.checks.expected") + " true (불리언)",
		msg("tui.checks.observed") + ` "true" (문자열)`,
		msg("tui.checks.where") + " etc/containerd/conf.d/99-nvidia.toml:6:17",
		"✓ 통과  TOML 로 읽었습니다.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("step page lacks %q:\n%s", want, s)
		}
	}
}

func TestToastOnPass(t *testing.T) {
	m := testModel(t, 80, 24)
	lab := fixture.Lab()
	base := withReport(fixture.Report(lab), 1, checks.Failed)
	m = send(t, m, reportOf(m, base))
	m = press(t, m, "1")
	if m.foot.toast != nil {
		t.Fatalf("toast without a change: %q", m.foot.toast.text)
	}
	m, cmd := update(m, reportOf(m, withReport(base, 1, checks.Passed)))
	if m.foot.toast == nil || !strings.Contains(m.foot.toast.text, msg("tui.toast.passed", "steps", 1)) {
		t.Fatalf("no pass toast: %+v", m.foot.toast)
	}
	if !strings.Contains(m.foot.toast.text, "2단계") {
		t.Errorf("toast does not say how to go on: %q", m.foot.toast.text)
	}
	if cmd == nil {
		t.Error("no commands after a report (timer, next read)")
	}
	if m.page != 1 {
		t.Error("a pass moved the learner")
	}
	m = press(t, m, "enter")
	if m.page != 2 || m.foot.toast != nil {
		t.Errorf("enter on the toast: page %d toast %v", m.page, m.foot.toast)
	}
	// The toast goes away by itself: only its own timer clears it.
	m, _ = update(m, reportOf(m, withReport(base, 1, checks.Failed)))
	m, _ = update(m, reportOf(m, withReport(base, 1, checks.Passed)))
	id := m.foot.toast.id
	m, _ = update(m, toastExpiredMsg{id: id - 1})
	if m.foot.toast == nil {
		t.Fatal("an older timer cleared the toast")
	}
	m, _ = update(m, toastExpiredMsg{id: id})
	if m.foot.toast != nil {
		t.Fatal("toast outlived its timer")
	}
}

func TestNoToastsBeforeReady(t *testing.T) {
	m := New(Options{Lab: fixture.Lab(), Colors: ColorsNone})
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	rep := withReport(fixture.Report(fixture.Lab()), 1, checks.Waiting)
	rep.Ready = false
	m = send(t, m, reportOf(m, rep))
	m = send(t, m, reportOf(m, withReport(rep, 1, checks.Passed)))
	if m.foot.toast != nil {
		t.Fatalf("toast from start-up settling: %q", m.foot.toast.text)
	}
	if !strings.Contains(screen(m), msg("tui.status.not_ready")) {
		t.Error("not-ready state not shown")
	}
}

func TestRegressionAlert(t *testing.T) {
	m := testModel(t, 80, 24)
	lab := fixture.Lab()
	base := fixture.Report(lab) // step 1 passed
	m = send(t, m, reportOf(m, base))
	m = press(t, m, "2")
	// Waiting or unknown is not red: no alert.
	m = send(t, m, reportOf(m, withReport(base, 1, checks.Unknown)))
	if m.foot.alert != nil {
		t.Fatal("alert for a step that became unknown")
	}
	m = send(t, m, reportOf(m, base))
	m = send(t, m, reportOf(m, withReport(base, 1, checks.Failed)))
	if m.foot.alert == nil || m.foot.alert.steps[0] != 1 {
		t.Fatalf("no alert: %+v", m.foot.alert)
	}
	s := screen(m)
	if !strings.Contains(s, "통과했던 1단계가 다시 미통과입니다") || !strings.Contains(s, "SystemdCgroup") {
		t.Errorf("alert lacks the step or the reason:\n%s", s)
	}
	if !strings.Contains(s, "enter "+msg("tui.short.go_step", "step", 1)) {
		t.Errorf("help line lacks the jump to the step:\n%s", s)
	}
	m = press(t, m, "enter")
	if m.page != 1 || m.foot.alert != nil {
		t.Fatalf("enter: page %d alert %+v", m.page, m.foot.alert)
	}
	// Passing again clears an alert by itself.
	m = send(t, m, reportOf(m, base))
	m = send(t, m, reportOf(m, withReport(base, 1, checks.Failed)))
	m = send(t, m, reportOf(m, base))
	if m.foot.alert != nil {
		t.Fatal("alert stayed after the step passed again")
	}
}

func TestResizeKeepsParagraph(t *testing.T) {
	m := testModel(t, 100, 40)
	m = press(t, m, "2", "G")
	top := m.pg.anchorAt(m.pg.vp.YOffset)
	gen := m.gen
	lines := strings.Split(m.pg.vp.View(), "\n")
	first := strings.TrimSpace(lines[0])

	m2, cmd := update(m, tea.WindowSizeMsg{Width: 60, Height: 30})
	if m2.gen != gen+1 || cmd == nil {
		t.Fatalf("resize: gen %d→%d, cmd %v", gen, m2.gen, cmd)
	}
	checkFits(t, m2) // the old lines, cut, until the new rendering comes
	m2 = send(t, m2, tea.WindowSizeMsg{Width: 60, Height: 30})
	for _, msg := range runCmd(cmd) {
		m2 = send(t, m2, msg)
	}
	if m2.pg.anchor != nil {
		t.Fatal("anchor not applied after the rendering arrived")
	}
	got := m2.pg.anchorAt(m2.pg.vp.YOffset)
	if got.block != top.block {
		t.Errorf("after resize the top block is %d, was %d (%q)", got.block, top.block, first)
	}
	checkFits(t, m2)
	// And back: still the same paragraph.
	m3 := send(t, m2, tea.WindowSizeMsg{Width: 100, Height: 40})
	if b := m3.pg.anchorAt(m3.pg.vp.YOffset).block; b != top.block {
		t.Errorf("after resizing back the top block is %d, was %d", b, top.block)
	}
}

func TestStaleRenderDropped(t *testing.T) {
	m := testModel(t, 80, 24)
	k := docKey{doc: pageDoc(1), width: 80, theme: m.th.Name}
	delete(m.docs.cache, k)
	stale := []renderedMsg{
		{key: docKey{doc: pageDoc(1), width: 60, theme: m.th.Name}, gen: m.gen, blocks: [][]string{{"WRONG WIDTH"}}},
		{key: k, gen: m.gen - 1, blocks: [][]string{{"OLD GEN"}}},
		{key: docKey{doc: pageDoc(1), width: 80, theme: "light"}, gen: m.gen, blocks: [][]string{{"WRONG THEME"}}},
	}
	for _, s := range stale {
		m2, cmd := update(m, s)
		if _, ok := m2.docs.cache[k]; ok || cmd != nil {
			t.Errorf("stale %+v was taken", s.key)
		}
		if _, ok := m2.docs.cache[s.key]; ok {
			t.Errorf("stale %+v was cached", s.key)
		}
	}
	m = press(t, m, "1")
	m2, _ := update(m, renderedMsg{key: k, gen: m.gen, blocks: [][]string{{"FRESH TEXT"}}})
	if !strings.Contains(screen(m2), "FRESH TEXT") {
		t.Error("a current rendering was not shown")
	}
}

func TestViewFitsEverySize(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {100, 40}, {160, 50}, {40, 10}, {61, 17}} {
		m := testModel(t, sz[0], sz[1])
		for _, keys := range [][]string{nil, {"1"}, {"2"}, {"2", "G"}, {"2", "o"}, {"?"}, {"1", "h", "h", "h"}} {
			checkFits(t, press(t, m, keys...))
		}
	}
}

func TestTooSmall(t *testing.T) {
	m := testModel(t, 39, 20)
	s := screen(m)
	if !strings.Contains(s, msg("tui.small.title")) || !strings.Contains(s, "39x20") {
		t.Fatalf("no notice at 39x20:\n%s", s)
	}
	checkFits(t, m)
	m = press(t, m, "2")
	if m.page != 0 {
		t.Error("keys other than quit work while too small")
	}
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 9})
	if !strings.Contains(screen(m), msg("tui.small.title")) {
		t.Error("no notice at 80x9")
	}
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if strings.Contains(screen(m), msg("tui.small.title")) || !strings.Contains(screen(m), "GPU 사고 재현") {
		t.Errorf("layout not back at 80x24:\n%s", screen(m))
	}
	if _, cmd := update(m, keyMsg("q")); cmd == nil {
		t.Error("q does not quit")
	}
}

func TestQuitKeys(t *testing.T) {
	m := testModel(t, 80, 24)
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := update(m, keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s does not quit", k)
		}
	}
}

func TestOutsideTextIsSanitized(t *testing.T) {
	m := testModel(t, 80, 30)
	rep := fixture.Report(fixture.Lab())
	rep.Steps[1].Checks[1].Observed = "\x1b[31mred\x1b[0m\rcarriage\x07bell\ttab \xff"
	rep.Steps[1].Observed = append(rep.Steps[1].Observed, checks.Fact{Label: "출력", Value: "a\x1b]52;c;ZXZpbA==\x07b"})
	m = send(t, m, reportOf(m, rep))
	m = press(t, m, "2", "o")
	v := m.View()
	for _, bad := range []string{"\x1b[31m", "\r", "\x07", "\x1b]52"} {
		if strings.Contains(v, bad) {
			t.Errorf("view passes %q through", bad)
		}
	}
	for _, shown := range []string{"␛[31mred␛[0m␍carriage␇bell    tab ?", "a␛]52;c;ZXZpbA==␇b"} {
		if !strings.Contains(v, shown) {
			t.Errorf("escaped text %q not shown:\n%s", shown, v)
		}
	}
}

func TestCopyTargets(t *testing.T) {
	lab := fixture.Lab()
	got := copyTargets(lab.Steps[0].Body, "/root/gpuop")
	want := []string{
		"/root/gpuop/etc/containerd/config.toml",
		"mkdir -p /root/gpuop/etc/containerd",
		"vi /root/gpuop/etc/containerd/config.toml",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("step 1 targets:\n%q\nwant\n%q", got, want)
	}
	got = copyTargets(lab.Steps[1].Body, "/x")
	want = []string{"/x/etc/containerd/conf.d/99-nvidia.toml", "cat /x/etc/containerd/conf.d/99-nvidia.toml"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("step 2 targets:\n%q\nwant\n%q", got, want)
	}
	heredoc := "```bash\n$ cat <<EOF > {{ROOT}}/a\nx = 1\nEOF\n```\n"
	if got := copyTargets(heredoc, "/r"); len(got) != 1 || got[0] != "cat <<EOF > /r/a\nx = 1\nEOF" {
		t.Errorf("here-document: %q", got)
	}
	if got := copyTargets("```toml\nversion = 2\n```\n`runc` 하나", "/r"); len(got) != 0 {
		t.Errorf("non-commands taken: %q", got)
	}
}

func TestCopyKeyWritesOSC52AndCycles(t *testing.T) {
	var out bytes.Buffer
	m := testModel(t, 80, 24)
	m.copier.clip = clipboard{mode: ClipboardAuto, out: &out}
	m = press(t, m, "1")
	_, cmd := update(m, keyMsg("c"))
	msgs := runCmd(cmd)
	if len(msgs) != 1 {
		t.Fatalf("copy produced %v", msgs)
	}
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte("/root/gpuop/etc/containerd/config.toml")) + "\x07"
	if out.String() != want {
		t.Errorf("OSC 52 written = %q, want %q", out.String(), want)
	}
	m = send(t, m, msgs[0])
	if m.foot.toast == nil || !strings.Contains(m.foot.toast.text, "OSC 52") || !strings.Contains(m.foot.toast.text, "config.toml") {
		t.Fatalf("toast does not say where it went: %+v", m.foot.toast)
	}
	out.Reset()
	m, cmd = update(press(t, m, "c"), keyMsg("c"))
	runCmd(cmd)
	if !strings.Contains(out.String(), base64.StdEncoding.EncodeToString([]byte("vi /root/gpuop/etc/containerd/config.toml"))) {
		t.Errorf("third c did not copy the third target: %q", out.String())
	}
	m.copier.clip.mode = ClipboardOff
	m = send(t, m, tea.WindowSizeMsg{Width: 81, Height: 24})
	if m.keys.Copy.Enabled() {
		t.Error("copy enabled with clipboard off")
	}
}

func TestRescanKey(t *testing.T) {
	called := make(chan struct{}, 1)
	m := testModel(t, 80, 24, func(o *Options) { o.Rescan = func() { called <- struct{}{} } })
	m, cmd := update(m, keyMsg("r"))
	if cmd == nil {
		t.Fatal("r gave no command")
	}
	select {
	case <-called:
		t.Fatal("Rescan ran inside Update")
	default:
	}
	runCmd(cmd)
	select {
	case <-called:
	default:
		t.Fatal("the command did not call Rescan")
	}
	if m.foot.toast == nil {
		t.Error("no toast after r")
	}
	m2 := testModel(t, 80, 24)
	if m2.keys.Rescan.Enabled() {
		t.Error("r enabled without Rescan")
	}
}

func TestHelpToggle(t *testing.T) {
	m := testModel(t, 80, 40)
	m = press(t, m, "?")
	s := screen(m)
	for _, want := range []string{msg("tui.key.next"), msg("tui.key.hint"), msg("tui.keygroup.scroll"), "pgdn/space/f"} {
		if !strings.Contains(s, want) {
			t.Errorf("full help lacks %q", want)
		}
	}
	m = press(t, m, "?")
	if m.showHelp {
		t.Error("? did not close help")
	}
}

func TestReportsChannel(t *testing.T) {
	lab := fixture.Lab()
	reports := make(chan labrun.Update, 1)
	first := fixture.Report(lab)
	reports <- labrun.Next(nil, first)
	m := New(Options{Lab: lab, Updates: reports, Colors: ColorsNone})
	msgs := runCmd(m.Init())
	if len(msgs) != 1 {
		t.Fatalf("Init gave %v", msgs)
	}
	m, again := update(m, msgs[0])
	if m.report == nil || m.report.Seq != 1 {
		t.Fatalf("report not taken: %+v", m.report)
	}
	reports <- labrun.Next(&first, withReport(fixture.Report(lab), 2, checks.Passed))
	next := runCmd(again)
	if len(next) != 1 {
		t.Fatalf("the read was not re-armed: %v", next)
	}
	m, again = update(m, next[0])
	if m.report.Step(2).Status != checks.Passed {
		t.Fatal("second report not taken")
	}
	close(reports)
	last := runCmd(again)
	if len(last) != 1 {
		t.Fatalf("closed channel: %v", last)
	}
	if _, ok := last[0].(reportsClosedMsg); !ok {
		t.Fatalf("closed channel gave %T", last[0])
	}
	if _, cmd := update(m, last[0]); cmd != nil {
		t.Error("kept reading a closed channel")
	}
}

// Zero options, a report that does not match the lab, problems and a
// cluster state: nothing crashes and the screen still fits.
func TestOddInputs(t *testing.T) {
	m := New(Options{})
	m = send(t, m, sizeMsg(60, 20))
	m = press(t, m, "n", "1", "h", "o", "c", "r", "?", "G")
	checkFits(t, m)

	m = testModel(t, 60, 20, func(o *Options) { o.Banner = "기록 재생 중: 2025-01-02 실습 기록" })
	rep := fixture.Report(fixture.Lab())
	rep.Steps = append(rep.Steps, engine.StepResult{Number: 9, Status: checks.Failed}) // not in the lab
	rep.Steps[0].Checks = nil                                                          // no checks at all
	rep.Problems = []string{"관측원 files 가 멈췄습니다: inotify 한도"}
	rep.Cluster.State = "unreachable"
	rep.Cluster.Server = "https://127.0.0.1:6443"
	m = send(t, m, reportOf(m, rep))
	for _, k := range []string{"0", "G", "1", "2", "o"} {
		m = press(t, m, k)
		checkFits(t, m)
	}
	m = press(t, m, "0", "G")
	s := screen(m)
	if !strings.Contains(s, "inotify 한도") || !strings.Contains(s, "127.0.0.1:6443") {
		t.Errorf("problems or cluster state missing on the introduction:\n%s", s)
	}
	if first := strings.Split(s, "\n")[0]; !strings.Contains(first, "기록 재생") || !strings.Contains(first, "▸0") {
		t.Errorf("header at 60 columns lost the banner or the marker: %q", first)
	}
	// At the minimum width the step strip still fits whole.
	m = send(t, m, sizeMsg(40, 10))
	if first := strings.Split(screen(m), "\n")[0]; !strings.Contains(first, "2✗") {
		t.Errorf("strip cut at 40 columns: %q", first)
	}
	checkFits(t, m)
}

func TestLightThemeAndColour(t *testing.T) {
	m := testModel(t, 80, 24, func(o *Options) { o.Theme = "light"; o.Colors = Colors256 })
	m = press(t, m, "2")
	v := m.View()
	if !strings.Contains(v, "\x1b[") {
		t.Fatal("no colour with 256 colours")
	}
	checkFits(t, m)
	d := testModel(t, 80, 24, func(o *Options) { o.Colors = Colors256 })
	if press(t, d, "2").View() == v {
		t.Error("light and dark themes look the same")
	}
}

// From the middle of a long paragraph, resizing back and forth keeps that
// paragraph at the top, and coming back to the first width gives the same
// top line: round trips do not creep.
func TestResizeRoundTripsKeepTheMiddle(t *testing.T) {
	lab := realLab(t)
	m := New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone})
	m = send(t, m, sizeMsg(60, 30))
	m = send(t, m, reportOf(m, fixture.Report(lab)))
	m = press(t, m, "3")
	// The longest block of the page that leaves a screenful below it.
	best, bestLen := -1, 0
	for i, start := range m.pg.blockStarts {
		end := m.pg.vp.TotalLineCount()
		if i+1 < len(m.pg.blockStarts) {
			end = m.pg.blockStarts[i+1]
		}
		if n := end - start; n > bestLen && start+n/2+m.pg.vp.Height < m.pg.vp.TotalLineCount() {
			best, bestLen = i, n
		}
	}
	if bestLen < 4 {
		t.Fatalf("step 3 has no long block at 60 columns (longest %d lines)", bestLen)
	}
	m.pg.vp.SetYOffset(m.pg.blockStarts[best] + bestLen/2)
	topLine := func(m Model) string { return squeeze(strings.Split(m.pg.vp.View(), "\n")[0]) }
	want := topLine(m)
	t.Logf("block %d of %d lines, top line %d: %q", best, bestLen, bestLen/2, want)
	for trip := 1; trip <= 5; trip++ {
		m = send(t, m, sizeMsg(100, 30))
		if a := m.pg.anchorAt(m.pg.vp.YOffset); a.block != best {
			t.Fatalf("trip %d at 100 columns: block %d at the top, want %d", trip, a.block, best)
		}
		// The line on top at 100 columns holds where the top line at 60
		// began.
		rows := strings.Split(m.pg.vp.View(), "\n")
		if got := squeeze(rows[0] + rows[1]); !strings.Contains(got, prefix(want, 4)) {
			t.Errorf("trip %d at 100 columns: top lines %q do not hold %q", trip, got, prefix(want, 4))
		}
		m = send(t, m, sizeMsg(60, 30))
		if a := m.pg.anchorAt(m.pg.vp.YOffset); a.block != best {
			t.Fatalf("trip %d back at 60 columns: block %d at the top, want %d", trip, a.block, best)
		}
		if got := topLine(m); got != want {
			t.Fatalf("trip %d back at 60 columns: top line %q, want %q", trip, got, want)
		}
		checkFits(t, m)
	}
	// Scrolling in between is a new position, kept from there.
	m = press(t, m, "j")
	want = topLine(m)
	m = send(t, send(t, m, sizeMsg(100, 30)), sizeMsg(60, 30))
	if got := topLine(m); got != want {
		t.Errorf("after scrolling one line and a round trip: top line %q, want %q", got, want)
	}
}

// The copy toast fits two lines of a 60-column pane whole: the copied
// text (and an error) is shortened in the middle, the rest of the message
// (where it went, how to paste) never is.
func TestCopyToastFitsTwoLines(t *testing.T) {
	const copied = "kubectl -n gpu-operator patch ds nvidia-container-toolkit --type=strategic -p '{\"spec\":{\"template\":{}}}'"
	tmuxErr := errors.New("error connecting to /tmp/tmux-1000/default (No such file or directory)")
	// \x00 marks where the copied text and the error go.
	cases := []struct {
		name string
		msg  copiedMsg
		want string
	}{
		{"osc52", copiedMsg{osc52: true}, msg("tui.toast.copied_osc52", "text", "\x00")},
		{"tmux", copiedMsg{osc52: true, tmux: true}, msg("tui.toast.copied_tmux", "text", "\x00")},
		{"tmux clipboard off", copiedMsg{osc52: true, tmux: true, tmuxClipboard: "off"}, msg("tui.toast.copied_tmux_clipboard_off", "text", "\x00")},
		{"tmux only", copiedMsg{tmux: true}, msg("tui.toast.copied_tmux_only", "text", "\x00")},
		{"tmux failed", copiedMsg{osc52: true, tmuxErr: tmuxErr}, msg("tui.toast.copied_osc52_tmux_failed", "text", "\x00", "err", "\x00")},
		{"failed", copiedMsg{tmuxErr: tmuxErr}, msg("tui.toast.copy_failed", "err", "\x00")},
	}
	for _, w := range []int{40, 60, 80, 100} {
		for _, c := range cases {
			m := testModel(t, w, 24)
			c.msg.text = copied
			m, _ = update(m, c.msg) // not send: it would wait on the toast's timer
			checkFits(t, m)
			footer := m.foot.lines()
			bar := footer[:len(footer)-len(m.foot.helpLines())]
			if len(bar) == 0 || len(bar) > 2 {
				t.Fatalf("%d columns, %s: toast of %d lines", w, c.name, len(bar))
			}
			if w < 60 {
				continue // at the narrowest a long toast may end in ".."
			}
			got := squeeze(strings.Join(bar, "\n"))
			// Every fixed part, whole and in order.
			rest := got
			for _, part := range strings.Split(c.want, "\x00") {
				i := strings.Index(rest, squeeze(part))
				if i < 0 {
					t.Errorf("%d columns, %s: %q missing or cut in the toast:\n%s", w, c.name, part, strings.Join(bar, "\n"))
					break
				}
				rest = rest[i+len(squeeze(part)):]
			}
			if short := c.msg.tmuxErr == nil && c.msg.tmuxClipboard == ""; w >= 100 && short && !strings.Contains(got, squeeze(copied)) {
				t.Errorf("%d columns, %s: the copied text is shortened with room to spare:\n%s", w, c.name, strings.Join(bar, "\n"))
			}
		}
	}
}

// On the page of the step that regressed, enter offers no jump there;
// with another regressed step it offers that one.
func TestRegressionAlertOnItsOwnPage(t *testing.T) {
	lab := fixture.Lab()
	base := withReport(fixture.Report(lab), 2, checks.Passed)
	m := testModel(t, 80, 24)
	m = send(t, m, reportOf(m, base))
	m = press(t, m, "1")
	m = send(t, m, reportOf(m, withReport(base, 1, checks.Failed)))
	if m.foot.alert == nil {
		t.Fatal("no alert")
	}
	if m.keys.Go.Enabled() {
		t.Errorf("enter offered on the regressed step's own page: %q", m.keys.Go.Help().Desc)
	}
	if s := screen(m); strings.Contains(s, "enter ") {
		t.Errorf("help line offers enter:\n%s", s)
	}
	m = press(t, m, "enter")
	if m.page != 1 || m.foot.alert == nil {
		t.Errorf("enter on the own page: page %d, alert %v", m.page, m.foot.alert)
	}
	m = send(t, m, reportOf(m, withReport(withReport(base, 1, checks.Failed), 2, checks.Failed)))
	if !m.keys.Go.Enabled() || m.keys.Go.Help().Desc != msg("tui.short.go_step", "step", 2) {
		t.Errorf("with steps 1 and 2 red, on step 1: enter %v %q", m.keys.Go.Enabled(), m.keys.Go.Help().Desc)
	}
	m = press(t, m, "enter")
	if m.page != 2 {
		t.Errorf("enter went to page %d, want 2", m.page)
	}
	// From the help page, enter shows the step's text again: offered.
	m = send(t, m, reportOf(m, base))
	m = send(t, m, reportOf(m, withReport(base, 2, checks.Failed)))
	m = press(t, m, "?")
	if !m.keys.Go.Enabled() {
		t.Error("enter not offered from the help page of the regressed step")
	}
}

// A newer fact about a step replaces an older one: a step that passed and
// then turned red again shows the alert alone, not the pass toast under
// it; and the pass toast names the key the help line offers for going on.
func TestRegressionReplacesPassToast(t *testing.T) {
	m := testModel(t, 60, 20)
	lab := fixture.Lab()
	base := withReport(fixture.Report(lab), 1, checks.Failed)
	m = send(t, m, reportOf(m, base))
	m = press(t, m, "1")
	m, _ = update(m, reportOf(m, withReport(base, 1, checks.Passed)))
	s := screen(m)
	goKey := msg("tui.toast.passed_go", "key", "enter", "next", 2)
	if !strings.Contains(squeeze(s), squeeze(goKey)) || !strings.Contains(s, "enter "+msg("tui.short.go_step", "step", 2)) {
		t.Fatalf("pass toast and help line do not both offer enter to step 2:\n%s", s)
	}
	m, _ = update(m, reportOf(m, base))
	s = screen(m)
	if m.foot.toast != nil || strings.Contains(s, msg("tui.toast.passed", "steps", 1)) {
		t.Errorf("the pass toast stayed under the regression alert:\n%s", s)
	}
	if m.foot.alert == nil || !strings.Contains(s, "통과했던 1단계가 다시 미통과입니다") {
		t.Errorf("no regression alert:\n%s", s)
	}
	checkFits(t, m)
	// A toast about another step stays, but no longer promises enter,
	// which now goes to the red step.
	two := withReport(withReport(base, 1, checks.Passed), 2, checks.Failed)
	m = send(t, m, reportOf(m, two))
	m, _ = update(m, reportOf(m, withReport(two, 1, checks.Failed)))
	m, _ = update(m, reportOf(m, withReport(withReport(two, 1, checks.Failed), 2, checks.Passed)))
	if m.foot.toast == nil || m.foot.alert == nil {
		t.Fatalf("want a toast for step 2 and the alert for step 1: toast %+v alert %+v", m.foot.toast, m.foot.alert)
	}
	if strings.Contains(m.foot.toast.text, "enter") || m.goTarget() == 3 {
		t.Errorf("toast %q promises enter while an alert is up (enter goes to page %d)", m.foot.toast.text, m.goTarget())
	}
}

// A lab of more than nine steps is navigated by typing the step number:
// "1" waits for a second digit (10, 11, 12 start with it), "12" goes,
// "1" and enter goes to 1, "3" goes at once, and the help says 0-12.
func TestJumpBeyondNine(t *testing.T) {
	lab := &content.Lab{ID: "long", Title: "열두 단계", Intro: "# 소개\n"}
	for i := 1; i <= 12; i++ {
		lab.Steps = append(lab.Steps, content.Step{Number: i, ID: fmt.Sprintf("s%d", i), Title: fmt.Sprintf("단계 %d", i), Body: "본문\n"})
	}
	m := testModel(t, 60, 24, func(o *Options) { o.Lab = lab })
	m = press(t, m, "1")
	if m.page != 0 || !strings.Contains(m.View(), "1… 단계로") {
		t.Fatalf("after 1: page %d, view:\n%s", m.page, m.View())
	}
	m = press(t, m, "2")
	if m.page != 12 {
		t.Fatalf("after 1 2: page %d, want 12", m.page)
	}
	m = press(t, m, "1", "enter")
	if m.page != 1 {
		t.Fatalf("after 1 enter: page %d, want 1", m.page)
	}
	m = press(t, m, "3")
	if m.page != 3 {
		t.Fatalf("after 3: page %d, want 3", m.page)
	}
	m = press(t, m, "1", "j") // another key ends the number
	m = press(t, m, "0")
	if m.page != 0 {
		t.Fatalf("after 1 j 0: page %d, want 0 (a new number)", m.page)
	}
	if h := m.keys.Jump.Help().Key; h != "0-12" {
		t.Errorf("jump help %q", h)
	}
	for _, line := range strings.Split(m.View(), "\n") {
		if w := narrow.StringWidth(line); w > 60 {
			t.Errorf("line of %d columns: %q", w, line)
		}
	}
}
