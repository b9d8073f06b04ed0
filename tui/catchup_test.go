package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/catchup"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/tui/internal/fixture"
)

// fakePlan is a catch-up plan whose Do says it catches step 2 up (as
// labkit/catchup words it) and writes one file under dir.
type fakePlan struct {
	dir    string
	lines  []string
	doErr  error
	did    bool
	closed bool
	at     time.Time // when step 2 was caught up
	backup string    // where Result says the files went (default: under dir)
}

func (p *fakePlan) Lines() []string { return p.lines }
func (p *fakePlan) Empty() bool     { return false }
func (p *fakePlan) Do(_ context.Context, progress io.Writer) error {
	fmt.Fprintln(progress, msg("catchup.progress.step", "step", 2, "title", "런타임 드롭인 쓰기"))
	if p.doErr != nil {
		return p.doErr
	}
	p.did, p.at = true, time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	fmt.Fprintln(progress, msg("catchup.progress.done", "step", 2))
	return os.WriteFile(filepath.Join(p.dir, "config.toml"), []byte("reference\n"), 0o644)
}
func (p *fakePlan) CaughtUp() map[int]time.Time {
	if !p.did {
		return nil
	}
	return map[int]time.Time{2: p.at}
}
func (p *fakePlan) Result() string {
	if p.backup != "" {
		return msg("catchup.done", "to", 3, "dir", p.backup)
	}
	return msg("catchup.done", "to", 3, "dir", p.dir+"/labmate-backup-1")
}
func (p *fakePlan) Close() { p.closed = true }

// planLines are a plan as labkit/catchup words it: step 1 left alone,
// step 2's drop-in written, the learner's file kept.
func planLines(backup string) []string {
	return []string{
		msg("catchup.plan.head", "to", 3, "root", fixture.Root),
		msg("catchup.plan.keep", "step", 1, "title", "containerd 설정 찾기"),
		msg("catchup.plan.step", "step", 2, "title", "런타임 드롭인 쓰기", "status", msg("status.failed")),
		msg("catchup.plan.write", "path", "etc/containerd/conf.d/99-nvidia.toml"),
		msg("catchup.plan.backup", "n", 1, "dir", backup),
		msg("catchup.plan.progress"),
	}
}

// catchUpModel is gpu-incident on step 3 (step 1 passes, step 2 fails),
// at w×h, whose catch-up key plans with plan (nil: none).
func catchUpModel(t *testing.T, w, h int, plan func(context.Context, int) (CatchUpPlan, error)) Model {
	t.Helper()
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	return press(t, testModel(t, w, h, func(o *Options) { o.Lab = lab; o.PlanCatchUp = plan }), "3")
}

// The key shows the plan and asks; nothing is done before yes, and the
// plan asked for is the one to the step on screen. At 60 columns every
// line fits, nothing cut.
func TestCatchUpShowsThePlanAndAsks(t *testing.T) {
	dir := t.TempDir()
	p := &fakePlan{dir: dir, lines: planLines(dir + "/labmate-backup-1")}
	asked := 0
	m := catchUpModel(t, 60, 24, func(_ context.Context, to int) (CatchUpPlan, error) { asked = to; return p, nil })
	if !m.keys.CatchUp.Enabled() || !strings.Contains(screen(m), "따라잡기") {
		t.Fatalf("no catch-up key on step 3 while step 2 fails:\n%s", screen(m))
	}
	m = press(t, m, "C")
	v := flat(screen(m))
	if asked != 3 || p.did {
		t.Fatalf("planned to %d, done %v", asked, p.did)
	}
	for _, want := range []string{"따라잡기: 3단계 앞까지", "이미 통과합니다", "쓸 파일:", "99-nvidia.toml", "보관합니다", "이대로 따라잡을까요? y: 따라잡기, n, esc:"} {
		if !strings.Contains(v, want) {
			t.Errorf("the plan lacks %q:\n%s", want, v)
		}
	}
	checkFits(t, m)
	// Keys of the page do nothing while it asks: q is still quit, n is no.
	m = press(t, m, "h", "2")
	if m.page != 3 || m.catchUp == nil || p.did {
		t.Errorf("a page key went through the question: page %d, open %v", m.page, m.catchUp != nil)
	}
}

// n (or esc) leaves the plan: nothing written, the plan let go, and the
// footer says nothing changed.
func TestCatchUpCancelChangesNothing(t *testing.T) {
	for _, k := range []string{"n", "esc"} {
		dir := t.TempDir()
		p := &fakePlan{dir: dir, lines: planLines(dir)}
		m := catchUpModel(t, 60, 24, func(context.Context, int) (CatchUpPlan, error) { return p, nil })
		m = press(t, m, "C", k)
		if p.did || !p.closed || m.catchUp != nil {
			t.Errorf("%s: done %v, closed %v, view open %v", k, p.did, p.closed, m.catchUp != nil)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: the cancelled catch-up wrote %d files", k, len(entries))
		}
		if !strings.Contains(flat(screen(m)), "아무것도 바꾸지 않았습니다") {
			t.Errorf("%s: no word that nothing changed:\n%s", k, screen(m))
		}
	}
}

// y does the plan from a command, says how it ended and has the files
// read again; esc closes the view.
func TestCatchUpConfirmApplies(t *testing.T) {
	dir := t.TempDir()
	p := &fakePlan{dir: dir, lines: planLines(dir)}
	rescans := 0
	m := catchUpModel(t, 60, 24, func(context.Context, int) (CatchUpPlan, error) { return p, nil })
	m.opts.Rescan = func() { rescans++ }
	m = press(t, m, "C", "y")
	if b, err := os.ReadFile(filepath.Join(dir, "config.toml")); err != nil || string(b) != "reference\n" || !p.closed {
		t.Fatalf("after yes: %q %v, closed %v", b, err, p.closed)
	}
	if v := flat(screen(m)); !strings.Contains(v, "3단계까지 따라잡았습니다") || rescans != 1 {
		t.Errorf("no result (rescans %d):\n%s", rescans, v)
	}
	checkFits(t, m)
	m = press(t, m, "esc")
	if m.catchUp != nil || m.page != 3 {
		t.Errorf("esc left the view open (%v) or moved (page %d)", m.catchUp != nil, m.page)
	}
}

// A refusal (here: not labmate's sandbox) is said in Korean, as the
// command says it, and nothing is asked or done; a catch-up stopped
// halfway says why.
func TestCatchUpRefusalIsWorded(t *testing.T) {
	refusal := &catchup.Refusal{Msg: msg("catchup.not_sandbox", "server", "https://10.0.0.1:6443", "context", "prod", "lab", "gpu-incident")}
	m := catchUpModel(t, 60, 24, func(context.Context, int) (CatchUpPlan, error) { return nil, refusal })
	m = press(t, m, "C")
	v := flat(screen(m))
	if !strings.Contains(v, "샌드박스가 아니라서") || !strings.Contains(v, "바꾸지 않았습니다") || m.keys.Yes.Enabled() {
		t.Errorf("refusal:\n%s", v)
	}
	checkFits(t, m)

	dir := t.TempDir()
	p := &fakePlan{dir: dir, lines: planLines(dir), doErr: &catchup.Refusal{Msg: msg("catchup.not_passed", "step", 2, "timeout", "1분", "why", "드롭인이 없습니다")}}
	m = catchUpModel(t, 60, 24, func(context.Context, int) (CatchUpPlan, error) { return p, nil })
	m = press(t, m, "C", "y")
	if v := flat(screen(m)); !strings.Contains(v, "통과하지 않아서 멈췄습니다") || !p.closed {
		t.Errorf("stopped catch-up (closed %v):\n%s", p.closed, v)
	}
}

// The plan names the learner's files: an escape in a path is shown,
// never sent.
func TestCatchUpPlanTextIsCleaned(t *testing.T) {
	dir := t.TempDir()
	p := &fakePlan{dir: dir, lines: []string{msg("catchup.plan.write", "path", "evil"+hostileText)}}
	m := catchUpModel(t, 100, 30, func(context.Context, int) (CatchUpPlan, error) { return p, nil })
	m = press(t, m, "C")
	assertOnlyStyling(t, m.View(), "evil"+hostileShown)
	m = catchUpModel(t, 100, 30, func(context.Context, int) (CatchUpPlan, error) { return nil, errors.New("why " + hostileText) })
	m = press(t, m, "C")
	assertOnlyStyling(t, m.View(), "why "+hostileShown)
}

// The key is there only where a catch-up can be: not without the
// command's planner (a replay), not on the introduction or step 1, not
// where every step before passes.
func TestCatchUpKeyOnlyWhereItWorks(t *testing.T) {
	plan := func(context.Context, int) (CatchUpPlan, error) { return nil, errors.New("x") }
	if m := catchUpModel(t, 80, 24, nil); m.keys.CatchUp.Enabled() {
		t.Error("catch-up key without a planner")
	}
	m := catchUpModel(t, 80, 24, plan)
	for _, pg := range []string{"0", "1", "2"} {
		// Step 2: only step 1 is before it, and it passes.
		if m = press(t, m, pg); m.keys.CatchUp.Enabled() {
			t.Errorf("catch-up key on page %s", pg)
		}
	}
	if m = press(t, m, "3"); !m.keys.CatchUp.Enabled() {
		t.Error("no catch-up key on step 3")
	}
}

// The TUI's key on a real plan (labkit/catchup, as `labmate catch-up`
// makes it, on a run of its own): the learner's config kept in the
// backup, the reference written, steps 1 and 2 recorded as caught up.
func TestCatchUpKeyOnARealPlan(t *testing.T) {
	kit, err := labkit.Open("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "lab")
	const config = "etc/containerd/config.toml"
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(config)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, config), []byte("version = 2\n# 내 설정\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := labkittest.Store(t, kit, root)
	plan := func(ctx context.Context, to int) (CatchUpPlan, error) {
		off := kube.Target{Off: true}
		run, err := labrun.New(labrun.Options{Lab: kit.Text, Steps: kit.Steps, Scope: kit.Scope, Root: root, Cluster: off, Progress: store})
		if err != nil {
			return nil, err
		}
		p, err := catchup.New(ctx, catchup.Options{Kit: kit, Root: root, Run: run, Cluster: off, Progress: store, To: to, Timeout: 30 * time.Second})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	m := New(Options{Lab: kit.Text, Root: root, Theme: "dark", Colors: ColorsNone, PlanCatchUp: plan})
	m = send(t, m, sizeMsg(60, 40))
	m = press(t, m, "3")
	m = press(t, m, "C")
	if v := screen(m); !strings.Contains(v, config) || !strings.Contains(v, "labmate-backup-") || m.catchUp.phase != catchUpAsking {
		t.Fatalf("the real plan:\n%s", v)
	}
	checkFits(t, m)
	m = press(t, m, "y")
	if v := flat(screen(m)); !strings.Contains(v, "3단계까지 따라잡았습니다") {
		t.Fatalf("after yes:\n%s", v)
	}
	backups, _ := filepath.Glob(filepath.Join(root, "labmate-backup-*", config))
	if len(backups) != 1 {
		t.Fatalf("backups of the config: %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != "version = 2\n# 내 설정\n" {
		t.Errorf("backup holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, config)); strings.Contains(string(b), "내 설정") {
		t.Error("the config is still the learner's")
	}
	f, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if !f.Progress.IsCaughtUp(1) || !f.Progress.IsCaughtUp(2) || len(f.Progress.PassedAt) != 0 {
		t.Errorf("progress: caught up %v, passed %v", f.Progress.CaughtUpAt, f.Progress.PassedAt)
	}
}

// While a catch-up is done, each line its Do says (labkit/catchup's
// catchup.progress.*, as `labmate catch-up` prints them) is shown as it
// comes, the feed read on after each; the end says how it went under
// them. At 60 columns every line fits, and when the lines run past the
// pane the view follows them.
func TestCatchUpShowsEachStepAsItIsCaughtUp(t *testing.T) {
	dir := t.TempDir()
	p := &fakePlan{dir: dir, lines: planLines(dir)}
	m := catchUpModel(t, 60, 20, func(context.Context, int) (CatchUpPlan, error) { return p, nil })
	m = press(t, m, "8", "C")
	m, cmd := update(m, keyMsg("y"))
	if cmd == nil || m.catchUp.phase != catchUpDoing {
		t.Fatalf("yes: phase %v, command %v", m.catchUp.phase, cmd != nil)
	}
	if v := flat(screen(m)); !strings.Contains(v, msg("tui.catch_up.doing")) {
		t.Errorf("no word that it is being done:\n%s", v)
	}
	id := m.catchUp.id
	feed := make(chan tea.Msg)
	var lines []string
	for _, s := range m.lab.Steps[:7] {
		lines = append(lines, msg("catchup.progress.step", "step", s.Number, "title", s.Title), msg("catchup.progress.done", "step", s.Number))
	}
	for i, l := range lines {
		m, cmd = update(m, catchUpLineMsg{id: id, line: l, feed: feed})
		if cmd == nil {
			t.Fatalf("line %d: the feed is not read on", i)
		}
		checkFits(t, m)
		if v := flat(screen(m)); !strings.Contains(v, flat(l)) {
			t.Fatalf("line %d not in sight:\n%s", i, screen(m))
		}
	}
	if got := m.catchUp.done; !slices.Equal(got, lines) {
		t.Errorf("lines kept %q, want %q", got, lines)
	}
	// A line of an earlier catch-up is not shown, but its feed is read on.
	m, cmd = update(m, catchUpLineMsg{id: id - 1, line: "stale", feed: feed})
	if cmd == nil || strings.Contains(screen(m), "stale") {
		t.Errorf("stale line: shown %v, feed read on %v", strings.Contains(screen(m), "stale"), cmd != nil)
	}
	m, _ = update(m, catchUpDoneMsg{id: id, result: msg("catchup.done_no_backup", "to", 8)})
	checkFits(t, m)
	v := flat(screen(m))
	if !strings.Contains(v, "8단계까지 따라잡았습니다") || !strings.Contains(v, flat(lines[len(lines)-1])) || strings.Contains(v, msg("tui.catch_up.doing")) {
		t.Errorf("the end:\n%s", screen(m))
	}
	m = press(t, m, "g")
	if v := flat(screen(m)); !strings.Contains(v, flat(lines[0])) {
		t.Errorf("the first line is gone from the view's top:\n%s", screen(m))
	}
}

// A whole catch-up through the model's own commands, on a plan that says
// its steps: the lines come in order, before the result; a line naming
// a hostile title is shown, never sent.
func TestCatchUpLinesComeBeforeTheResult(t *testing.T) {
	dir := t.TempDir()
	p := &fakePlan{dir: dir, lines: planLines(dir)}
	m := catchUpModel(t, 60, 24, func(context.Context, int) (CatchUpPlan, error) { return p, nil })
	m = press(t, m, "C", "y")
	want := []string{msg("catchup.progress.step", "step", 2, "title", "런타임 드롭인 쓰기"), msg("catchup.progress.done", "step", 2)}
	if !slices.Equal(m.catchUp.done, want) || m.catchUp.phase != catchUpEnded {
		t.Fatalf("lines %q (phase %v), want %q", m.catchUp.done, m.catchUp.phase, want)
	}
	s := screen(m)
	at := func(t string) int { return strings.Index(s, t) }
	if r := at("3단계까지 따라잡았습니다"); at(want[0]) < 0 || at(want[0]) > at(want[1]) || at(want[1]) > r {
		t.Errorf("lines not in order before the result:\n%s", s)
	}
	if !maps.Equal(m.caughtUpAt, map[int]time.Time{2: p.at}) {
		t.Errorf("caught up %v, want step 2 at %v", m.caughtUpAt, p.at)
	}

	m = catchUpModel(t, 100, 30, func(context.Context, int) (CatchUpPlan, error) { return p, nil })
	m = press(t, m, "C")
	m, _ = update(m, keyMsg("y"))
	m, _ = update(m, catchUpLineMsg{id: m.catchUp.id, line: "title " + hostileText, feed: make(chan tea.Msg)})
	assertOnlyStyling(t, m.View(), "title "+hostileShown)
}
