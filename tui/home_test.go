package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/editor"
	"github.com/labhub/labmate/labkit/compare"
	"github.com/labhub/labmate/tui/internal/fixture"
	"github.com/labhub/labmate/tui/theme"
)

// The edit key is offered only on a step whose failing check points at
// a line of a lab file, and says so in the help line.
func TestEditKeyOnlyWhereAPlaceIs(t *testing.T) {
	m := testModel(t, 60, 20)
	if m.keys.Edit.Enabled() {
		t.Error("edit offered on the introduction")
	}
	m = press(t, m, "1")
	if m.keys.Edit.Enabled() {
		t.Error("edit offered on a passed step")
	}
	m = press(t, m, "2")
	if !m.keys.Edit.Enabled() || !strings.Contains(screen(m), "e 편집") {
		t.Errorf("edit not offered on step 2's failing check:\n%s", screen(m))
	}
	p, ok := m.editPlace()
	if !ok || p != (checks.Place{File: "etc/containerd/conf.d/99-nvidia.toml", Line: 6, Col: 17}) {
		t.Errorf("place %+v %v", p, ok)
	}
	m = press(t, m, "?")
	if m.keys.Edit.Enabled() {
		t.Error("edit offered over the help")
	}
	m = send(t, m, sizeMsg(60, 80))
	for _, w := range []string{"편집기로", "참조 풀이와", "마무리 페이지와"} {
		if !strings.Contains(screen(m), w) {
			t.Errorf("the help page does not list %q:\n%s", w, screen(m))
		}
	}
}

// Inside tmux the editor gets a pane beside labmate's: the tmux command
// names labmate's pane, the lab root and the editor's position; outside,
// the editor gets the terminal through the handover and comes back with
// the step on screen.
func TestEditOpensBesideOrHandsOver(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "etc/containerd/conf.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := testModel(t, 100, 30, func(o *Options) { o.Root = root })
	env := editor.Env{
		Getenv:   func(k string) string { return map[string]string{"EDITOR": "nvim"}[k] },
		LookPath: func(n string) (string, error) { return "/usr/bin/" + n, nil },
	}
	var ran []string
	m.opener = opener{env: env, tmux: true, pane: "%7", start: func(argv []string) error { ran = argv; return nil }}
	m = press(t, m, "2", "e")
	file := filepath.Join(root, "etc/containerd/conf.d/99-nvidia.toml")
	want := []string{"tmux", "split-window", "-t", "%7", "-h", "-b", "-c", root, "--", "nvim", "+call cursor(6, 17)", file}
	if !slices.Equal(ran, want) {
		t.Errorf("ran %q,\nwant %q", ran, want)
	}
	if s := screen(m); !strings.Contains(s, "옆 창에 열었습니다") || !strings.Contains(s, "2/2") {
		t.Errorf("no word of the pane, or the step left:\n%s", s)
	}

	var handed *exec.Cmd
	m.opener = opener{env: env, handover: fakeHandover(func(c *exec.Cmd) error { handed = c; return nil })}
	m = press(t, m, "e")
	if handed == nil || !slices.Equal(handed.Args, []string{"nvim", "+call cursor(6, 17)", file}) || handed.Dir != root {
		t.Fatalf("handed over %+v", handed)
	}
	if s := screen(m); !strings.Contains(s, "닫았습니다") || !strings.Contains(s, "2/2") {
		t.Errorf("after the editor:\n%s", s)
	}
}

// A failing editor is said in Korean and nothing else changes.
func TestEditFailureKeepsTheScreen(t *testing.T) {
	m := testModel(t, 60, 20)
	m = press(t, m, "2", "j", "j")
	before := m.pg.vp.YOffset
	exit := exec.Command("sh", "-c", "exit 3").Run()
	for _, c := range []struct {
		err  error
		says string
	}{
		{exit, "종료 코드 3"},
		{editor.ErrNone, "export EDITOR=nano"},
		{&editor.Outside{Root: "/r", Rel: "../x"}, "실습 루트 밖"},
		{&editor.BadVar{Var: "EDITOR", Value: `"x`, Err: errors.New("quote")}, "$EDITOR"},
		{exec.ErrNotFound, "찾지 못했습니다"},
	} {
		m2, _ := update(m, editedMsg{place: checks.Place{File: "etc/a.toml", Line: 2}, name: "vim", err: c.err})
		s := screen(m2)
		if !strings.Contains(s, c.says) || !strings.Contains(s, "2/2") || m2.pg.vp.YOffset != before {
			t.Errorf("%v: not said, or the screen moved:\n%s", c.err, s)
		}
		for _, english := range []string{"exit status", "executable file", "not under"} {
			if strings.Contains(s, english) {
				t.Errorf("%v: English reaches the learner:\n%s", c.err, s)
			}
		}
	}
}

// The compare view is offered only once the step passed.
func TestCompareOnlyAfterThePass(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Lab: lab, Root: t.TempDir(), Theme: "dark", Colors: ColorsNone})
	m = send(t, m, sizeMsg(80, 24))
	m = send(t, m, reportOf(m, fixture.Report(lab)))
	m = press(t, m, "2")
	if m.keys.Compare.Enabled() {
		t.Error("compare offered on a failing step")
	}
	m = press(t, m, "v")
	if m.comparing {
		t.Error("v opened the compare view before the step passed")
	}
	m = press(t, m, "1")
	if !m.keys.Compare.Enabled() || !strings.Contains(screen(m), "v 비교") {
		t.Errorf("compare not offered on a passed step:\n%s", screen(m))
	}
	m = press(t, m, "v")
	s := screen(m)
	if !m.comparing || !strings.Contains(s, "참조와 비교: 1단계") || !strings.Contains(s, "etc/containerd/config.toml") {
		t.Errorf("compare view:\n%s", s)
	}
	// The step turns red: the view closes, its key goes.
	m = send(t, m, reportOf(m, fixture.With(*m.report, lab, 1, checks.Failed)))
	if m.comparing || m.keys.Compare.Enabled() {
		t.Error("compare stays on a step that no longer passes")
	}
}

// The ending is offered once every step passed: the toast leads there
// with enter, n past the last step and t open it.
func TestEndingOnceEveryStepPassed(t *testing.T) {
	lab := fixture.Lab()
	lab.Finish = "# 마무리\n\n무엇을 만들었는지 돌아봅니다.\n"
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	m := testModel(t, 60, 20, func(o *Options) {
		o.Lab, o.Started, o.PassedAt = lab, t0, map[int]time.Time{1: t0.Add(4 * time.Minute)}
	})
	if m.keys.Ending.Enabled() {
		t.Error("ending offered before every step passed")
	}
	rep := fixture.With(*m.report, lab, 2, checks.Passed)
	rep.Time = t0.Add(10 * time.Minute)
	u := reportOf(m, rep)
	u.upd.FirstPassed = []int{2}
	m, _ = update(m, u)
	if !strings.Contains(screen(m), "enter 마무리로") && !strings.Contains(screen(m), "마무리를 봅니다") {
		t.Errorf("the all-passed toast does not lead to the ending:\n%s", screen(m))
	}
	m = press(t, m, "enter")
	s := screen(m)
	if !m.ending || !strings.Contains(s, "무엇을 만들었는지") {
		t.Fatalf("enter did not open the ending:\n%s", s)
	}
	m = press(t, m, "G")
	s = screen(m)
	for _, w := range []string{"내가 걸은 길", "4분", "6분"} {
		if !strings.Contains(s, w) {
			t.Errorf("the run summary lacks %q:\n%s", w, s)
		}
	}
	m = press(t, m, "esc")
	if m.ending {
		t.Error("esc did not close the ending")
	}
	m = press(t, m, "2", "n")
	if !m.ending {
		t.Error("n past the last step did not open the ending")
	}
}

type fakeHandover func(*exec.Cmd) error

func (f fakeHandover) Exec(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	return func() tea.Msg { return fn(f(c)) }
}

// A file that differs only in its text (a comment, the order) is said
// to mean the same as the reference, and the legend is said once.
func TestCompareSameMeaningSaysTheLegendOnce(t *testing.T) {
	th := theme.New("dark", termenv.Ascii)
	f := compare.File{Path: "etc/a.toml", SameMeaning: true, Hunks: []compare.Hunk{{RefLine: 1, LearnerLine: 1,
		Lines: []compare.Line{{Kind: compare.Learner, Text: "# mine"}, {Kind: compare.Both, Text: "version = 2"}}}}}
	var text []string
	for _, b := range (canvas{th, 60}).compareFile(f) {
		text = append(text, b.lines...)
	}
	// A sentence wrapped onto the next line is one sentence again.
	s := strings.ReplaceAll(strings.Join(text, "\n"), "\n   ", " ")
	if n := strings.Count(s, content.Msg("tui.compare.legend")); n != 1 {
		t.Errorf("the legend %d times, want once:\n%s", n, s)
	}
	if !strings.Contains(s, "값은 참조와 같습니다") {
		t.Errorf("same meaning not said:\n%s", s)
	}
}

// The ending tells the steps catch-up brought to the reference from the
// learner's own passes, from the progress it was started with: each
// caught-up step said so, with no time; the learner's steps timed from
// the pass or catch-up before; the totals count only the learner's. A
// pass seen after a step's catch-up is the reference's; one before it
// stays the learner's (as state.Progress keeps them).
func TestEndingTellsCaughtUpStepsApart(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	own := *lab     // content.Load shares its labs
	own.Finish = "" // the ending's own words, not the lab's closing page
	lab = &own
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	at := func(m, s int) time.Time { return t0.Add(time.Duration(m)*time.Minute + time.Duration(s)*time.Second) }
	caughtAt := at(30, 0)
	passed := map[int]time.Time{1: at(5, 0), 3: at(12, 0), 4: at(30, 20), 5: at(40, 0), 6: at(48, 0), 7: at(55, 0), 8: at(61, 0)}
	caught := map[int]time.Time{2: caughtAt, 3: caughtAt, 4: caughtAt}
	all := fixture.Report(lab)
	for _, s := range lab.Steps {
		all = fixture.With(all, lab, s.Number, checks.Passed)
	}
	m := New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone, Started: t0, PassedAt: passed, CaughtUpAt: caught})
	m = send(t, m, sizeMsg(60, 60))
	m = send(t, m, reportOf(m, all))
	m = press(t, m, "8", "t")
	if !m.ending {
		t.Fatal("t did not open the ending")
	}
	checkFits(t, m)
	s := flat(screen(m))
	stepLine := func(n int) string {
		st := lab.Steps[n-1]
		from := strings.Index(s, fmt.Sprintf("%d. %s", n, st.Title))
		if from < 0 {
			t.Fatalf("step %d not in the ending:\n%s", n, screen(m))
		}
		line := s[from:]
		if next := strings.Index(line, fmt.Sprintf(" %d. ", n+1)); next > 0 {
			line = line[:next]
		} else if totals := strings.Index(line, msg("tui.ending.tally", "steps", 8, "own", 6, "caught", 2)); totals > 0 {
			line = line[:totals]
		}
		return line
	}
	for _, n := range []int{2, 4} {
		if l := stepLine(n); !strings.Contains(l, "따라잡음") || strings.Contains(l, "걸린 시간") {
			t.Errorf("step %d, caught up, shown %q", n, l)
		}
	}
	for n, want := range map[int]string{1: "5분", 3: "7분", 5: "10분", 6: "8분", 7: "7분", 8: "6분"} {
		if l := stepLine(n); !strings.Contains(l, "걸린 시간 "+want+",") || strings.Contains(l, "따라잡음") {
			t.Errorf("step %d, the learner's, shown %q, want %s", n, l, want)
		}
	}
	for _, want := range []string{
		msg("tui.ending.no_page_caught_up", "title", lab.Title, "caught", 2),
		msg("tui.ending.tally", "steps", 8, "own", 6, "caught", 2),
		msg("tui.ending.total_own", "took", "43분", "n", 6),
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the ending lacks %q:\n%s", want, screen(m))
		}
	}
	if strings.Contains(s, msg("tui.ending.no_page", "title", lab.Title)) {
		t.Errorf("the ending still says every step passed:\n%s", screen(m))
	}
}

// A catch-up done in this run counts as one too: its step's pass, which
// the learner's run reports after it, is not the learner's.
func TestEndingCountsThisRunsCatchUp(t *testing.T) {
	dir := t.TempDir()
	p := &fakePlan{dir: dir, lines: planLines(dir)}
	m := catchUpModel(t, 80, 40, func(context.Context, int) (CatchUpPlan, error) { return p, nil })
	m = press(t, m, "C", "y", "esc")
	rep := *m.report
	for _, s := range m.lab.Steps {
		rep = fixture.With(rep, m.lab, s.Number, checks.Passed)
	}
	rep.Time = p.at.Add(20 * time.Second)
	u := reportOf(m, rep)
	u.upd.FirstPassed = []int{2}
	m = send(t, m, u)
	m = press(t, m, "t", "G")
	s := flat(screen(m))
	if !strings.Contains(s, msg("tui.ending.tally", "steps", 8, "own", 7, "caught", 1)) || !strings.Contains(s, "따라잡음 (") {
		t.Errorf("the ending does not say step 2 was caught up:\n%s", screen(m))
	}
}
