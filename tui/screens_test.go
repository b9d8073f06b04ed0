package tui

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui/internal/fixture"
	"github.com/labhub/labmate/tui/keys"
)

const screensDir = "../docs/screens"

// TestScreens draws what a learner sees at each supported pane size, from
// the embedded lab and a fixed report (step 1 passed, step 2 failing,
// the rest waiting), without colour. It checks every screen fits; with
// -update it writes them, and the key cheat sheet, to docs/screens/:
//
//	go test ./tui -run TestScreens -update
func TestScreens(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	rep := fixture.Report(lab)
	type shot struct {
		name string
		keys []string
	}
	shots := []shot{
		{"intro", nil},
		{"step2", []string{"2"}},
		{"step2-checks", []string{"2", "G"}},
		{"step1-hint", []string{"1", "h"}},
		{"step2-observed", []string{"2", "o"}},
		{"help", []string{"?"}},
	}
	files := map[string]string{}
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {100, 40}, {160, 50}} {
		for _, s := range shots {
			m := New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone})
			m.copier.clip.out = io.Discard // as under Run: the copy key is offered
			m = send(t, m, sizeMsg(sz[0], sz[1]))
			m = send(t, m, reportOf(m, rep))
			m = press(t, m, s.keys...)
			checkFits(t, m)
			files[fmt.Sprintf("%dx%d-%s.txt", sz[0], sz[1], s.name)] = screenText(m)
		}
	}
	// The regression alert and the solution question, at the narrowest.
	m := New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone})
	m = send(t, m, sizeMsg(60, 20))
	m = send(t, m, reportOf(m, rep))
	m = press(t, m, "2")
	m = send(t, m, reportOf(m, fixture.With(rep, lab, 1, checks.Failed)))
	checkFits(t, m)
	files["60x20-regression.txt"] = screenText(m)
	m = press(t, m, "esc", "1")
	for range lab.Steps[0].Hints {
		m = press(t, m, "h")
	}
	m = press(t, m, "h")
	checkFits(t, m)
	files["60x20-solution-question.txt"] = screenText(m)
	m = send(t, m, sizeMsg(50, 9))
	checkFits(t, m)
	files["50x9-too-small.txt"] = screenText(m)
	// The copy toast inside tmux, at the narrowest: the copied path
	// shortened in its middle, how to paste whole.
	m = New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone})
	m.copier.clip.out = io.Discard
	m = send(t, m, sizeMsg(60, 20))
	m = send(t, m, reportOf(m, rep))
	m = press(t, m, "2")
	m, _ = update(m, copiedMsg{text: copyTargets(lab.Steps[1].Body, fixture.Root)[0], osc52: true, tmux: true})
	checkFits(t, m)
	files["60x20-copied.txt"] = screenText(m)
	// The catch-up key's plan on step 3 (step 2 fails), asking: what is
	// left alone, written and kept, as labkit/catchup words it; then done.
	for _, sz := range [][2]int{{60, 20}, {80, 24}} {
		backup := fixture.Root + "/labmate-backup-20261207-103000"
		plan := &fakePlan{lines: planLines(backup), backup: backup}
		m = New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone,
			PlanCatchUp: func(context.Context, int) (CatchUpPlan, error) { return plan, nil }})
		m = send(t, m, sizeMsg(sz[0], sz[1]))
		m = send(t, m, reportOf(m, rep))
		m = press(t, m, "3", "C")
		checkFits(t, m)
		files[fmt.Sprintf("%dx%d-catch-up.txt", sz[0], sz[1])] = screenText(m)
		// Yes: each step as it was caught up, then how it ended.
		plan.dir = t.TempDir()
		m = press(t, m, "y")
		checkFits(t, m)
		files[fmt.Sprintf("%dx%d-catch-up-done.txt", sz[0], sz[1])] = screenText(m)
	}
	// A learner who is not root, the first time: the lab root in their
	// home is not there yet; the footer says where the files go and the
	// help line offers the key that makes it.
	home := labroot.Home{Dir: "/home/learner"}
	missing := labroot.Place{Root: labroot.Root{Path: "/home/learner/gpuop", From: labroot.FromHome, Default: "/home/learner/gpuop", Home: home},
		State: labroot.Missing, Parent: home.Dir, CanMake: true}
	for _, sz := range [][2]int{{60, 20}, {80, 24}} {
		m = New(Options{Lab: lab, Root: missing.Path, Place: missing, Theme: "dark", Colors: ColorsNone})
		m = send(t, m, sizeMsg(sz[0], sz[1]))
		m = send(t, m, reportOf(m, rep))
		checkFits(t, m)
		files[fmt.Sprintf("%dx%d-root-missing.txt", sz[0], sz[1])] = screenText(m)
	}
	for name, body := range homeScreens(t, lab, rep) {
		files[name] = body
	}
	for name, body := range replayScreens(t, lab) {
		files[name] = body
	}
	files["keys.md"] = cheatSheet()

	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	update := flag.Lookup("update")
	if update != nil && update.Value.String() == "true" {
		if err := os.MkdirAll(screensDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(screensDir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if readme, err = withReadmeScreen(readme, files); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(readmePath, readme, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	// The captures are generated files checked in (lazygit's cheat sheet
	// habit): any drift fails, and -update regenerates them.
	const regen = "regenerate with: go test ./tui -run TestScreens -update"
	for name, body := range files {
		old, err := os.ReadFile(filepath.Join(screensDir, name))
		switch {
		case err != nil:
			t.Errorf("docs/screens/%s: %v; %s", name, err, regen)
		case string(old) != body:
			t.Errorf("docs/screens/%s is out of date; %s\n%s", name, regen, firstDiff(string(old), body))
		}
	}
	entries, err := os.ReadDir(screensDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// Subdirectories belong to other screens' tests (board/: tui/board).
		if _, ok := files[e.Name()]; !ok && e.Name() != "README.md" && !e.IsDir() {
			t.Errorf("docs/screens/%s is not drawn by TestScreens any more: remove it", e.Name())
		}
	}
	if want, err := withReadmeScreen(readme, files); err != nil {
		t.Error(err)
	} else if string(want) != string(readme) {
		t.Errorf("README.md's capture differs from the docs/screens file it names; %s\n%s", regen, firstDiff(string(readme), string(want)))
	}
}

const readmePath = "../README.md"

// readmeScreen marks the capture in README.md: the comment names the
// docs/screens file whose text the fenced block right after it holds.
var readmeScreen = regexp.MustCompile("(?s)<!-- screen: docs/screens/([^ ]+) -->\n```text\n(.*?)```\n")

// withReadmeScreen returns readme with every marked capture replaced by
// the screen it names.
func withReadmeScreen(readme []byte, files map[string]string) ([]byte, error) {
	found := readmeScreen.FindAllSubmatchIndex(readme, -1)
	if len(found) == 0 {
		return nil, fmt.Errorf("README.md has no capture marked <!-- screen: docs/screens/NAME -->")
	}
	var out []byte
	last := 0
	for _, m := range found {
		name := string(readme[m[2]:m[3]])
		body, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("README.md shows docs/screens/%s, which TestScreens does not draw", name)
		}
		out = append(out, readme[last:m[4]]...)
		out = append(out, body...)
		last = m[5]
	}
	return append(out, readme[last:]...), nil
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  checked in: %q\n  drawn now:  %q", i+1, gl, wl)
		}
	}
	return ""
}

// replayScreens draw `labmate replay` of the built-in reference run part
// way through, at 60 and 100 columns: the report is the reference run's
// after the record where step 4 passed, the status the replay's own label
// for that moment.
func replayScreens(t *testing.T, lab *content.Lab) map[string]string {
	t.Helper()
	tr, err := trace.ReferenceOf(lab)
	if err != nil {
		t.Fatal(err)
	}
	steps := labkittest.GPUSteps(t)
	_, changes, err := labrun.Exact(context.Background(), lab, steps, tr)
	if err != nil {
		t.Fatal(err)
	}
	pos := 0
	for _, c := range changes {
		if c.Step == 4 && c.To == checks.Passed {
			pos = c.Pos
			break
		}
	}
	if pos == 0 {
		t.Fatal("step 4 never passes in the reference run")
	}
	part := *tr
	part.Records = tr.Records[:pos]
	rep, _, err := labrun.Exact(context.Background(), lab, steps, &part)
	if err != nil {
		t.Fatal(err)
	}
	status := trace.Progress{Pos: pos, Total: len(tr.Records), At: tr.Records[pos-1].At, Length: tr.Duration(), Speed: 10}.Label(tr.Name)
	out := map[string]string{}
	for _, sz := range [][2]int{{60, 20}, {100, 40}} {
		m := New(Options{
			Lab: lab, Root: tr.Header.Root, Theme: "dark", Colors: ColorsNone,
			Banner: content.Msg("trace.banner_static", "name", trace.DisplayName(tr.Name)),
			Replay: newFakeReplay(status),
		})
		m.copier.clip.out = io.Discard
		m = send(t, m, sizeMsg(sz[0], sz[1]))
		m, _ = update(m, replayMsg{status: status})
		m = send(t, m, reportOf(m, rep))
		m = press(t, m, "5")
		checkFits(t, m)
		s := screenText(m)
		if !strings.Contains(s, status[:10]) || !strings.Contains(s, "4✓") {
			t.Errorf("%dx%d replay screen lacks its status or step 4's pass:\n%s", sz[0], sz[1], s)
		}
		out[fmt.Sprintf("%dx%d-replay.txt", sz[0], sz[1])] = s
	}
	return out
}

// homeScreens draw the views a learner reaches once a step passed, at 60
// and 80 columns: step 2's drop-in beside the reference (written without
// version and with a comment: the lab declares a missing version
// equivalent, and says why), and the ending once every step passed, with
// the learner's times and hints, and with steps caught up.
func homeScreens(t *testing.T, lab *content.Lab, rep engine.Report) map[string]string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "etc", "containerd", "conf.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := "# toolkit 이 쓰는 드롭인\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n  BinaryName = \"/usr/bin/nvidia-container-runtime\"\n  SystemdCgroup = true\n"
	if err := os.WriteFile(filepath.Join(dir, "99-nvidia.toml"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	passed2 := fixture.With(rep, lab, 2, checks.Passed)
	all := rep
	for _, s := range lab.Steps {
		all = fixture.With(all, lab, s.Number, checks.Passed)
	}
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	passedAt := map[int]time.Time{}
	for i, s := range lab.Steps {
		passedAt[s.Number] = t0.Add(time.Duration(i+1)*7*time.Minute + time.Duration(i*13)*time.Second)
	}
	out := map[string]string{}
	for _, sz := range [][2]int{{60, 20}, {80, 24}} {
		m := New(Options{Lab: lab, Root: root, Theme: "dark", Colors: ColorsNone})
		m = send(t, m, sizeMsg(sz[0], sz[1]))
		m = send(t, m, reportOf(m, passed2))
		m = press(t, m, "2", "v")
		checkFits(t, m)
		out[fmt.Sprintf("%dx%d-compare.txt", sz[0], sz[1])] = screenText(m)
		m = press(t, m, "G")
		checkFits(t, m)
		out[fmt.Sprintf("%dx%d-compare-end.txt", sz[0], sz[1])] = screenText(m)

		m = New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone, Started: t0, PassedAt: passedAt,
			Progress: map[int]HintProgress{2: {Seen: 1}, 3: {Seen: 3, Solution: true}}})
		m = send(t, m, sizeMsg(sz[0], sz[1]))
		m = send(t, m, reportOf(m, all))
		m = press(t, m, "8", "t")
		checkFits(t, m)
		out[fmt.Sprintf("%dx%d-ending.txt", sz[0], sz[1])] = screenText(m)
		m = press(t, m, "G")
		checkFits(t, m)
		out[fmt.Sprintf("%dx%d-ending-run.txt", sz[0], sz[1])] = screenText(m)

		// A learner who passed step 1, caught up to step 6 after 40
		// minutes stuck on step 2, and passed the rest themselves.
		caughtAt := t0.Add(47 * time.Minute)
		caught := map[int]time.Time{2: caughtAt, 3: caughtAt, 4: caughtAt, 5: caughtAt}
		own := map[int]time.Time{1: passedAt[1], 6: caughtAt.Add(9*time.Minute + 41*time.Second),
			7: caughtAt.Add(17 * time.Minute), 8: caughtAt.Add(31*time.Minute + 5*time.Second)}
		m = New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone, Started: t0, PassedAt: own, CaughtUpAt: caught,
			Progress: map[int]HintProgress{2: {Seen: 3, Solution: true}, 6: {Seen: 1}}})
		m = send(t, m, sizeMsg(sz[0], sz[1]))
		m = send(t, m, reportOf(m, all))
		m = press(t, m, "8", "t", "G")
		checkFits(t, m)
		out[fmt.Sprintf("%dx%d-ending-caught-up.txt", sz[0], sz[1])] = screenText(m)
	}
	return out
}

// screenText is the screen as a reviewer reads it: no trailing blanks.
func screenText(m Model) string {
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// cheatSheet is the key reference, generated from the same table as the
// help line and the full help.
func cheatSheet() string {
	var b strings.Builder
	b.WriteString("# labmate keys\n\n")
	b.WriteString("Generated from tui/keys (`go test ./tui -run TestScreens -update`); rebind in\n")
	b.WriteString("`$XDG_CONFIG_HOME/labmate/config.toml` under `[keys]` by action name.\n")
	km := keys.Default(8)
	for _, g := range keys.Groups {
		fmt.Fprintf(&b, "\n## %s\n\n| action | keys | |\n| --- | --- | --- |\n", keys.GroupTitle(g))
		for _, s := range keys.Specs {
			if s.Group != g {
				continue
			}
			bd := km.Binding(s.Name)
			var ks []string
			for _, k := range bd.Keys() {
				ks = append(ks, "`"+keys.Display(k)+"`")
			}
			if s.Name == "jump" {
				ks = []string{"`0`-`8`"}
			}
			name := "`" + s.Name + "`"
			if s.Fixed {
				name += " (fixed)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", name, strings.Join(ks, " "), s.Desc())
		}
	}
	return b.String()
}
