package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/testbin"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui/internal/fixture"
	"github.com/labhub/labmate/tui/terminal"
)

// The tests in this file start the real program in real tmux panes, type
// keys and read the screen back with capture-pane. They build
// tui/internal/tuidemo (the TUI on a fixed report with the embedded lab)
// and cmd/labmate (the program itself: live on files, and replaying), and
// skip when tmux is missing or with -short. They run in parallel with each
// other (go test -parallel, GOMAXPROCS by default): each pane has a tmux
// server of its own, and most of a test's time is waiting for a screen.

var tmuxSeq atomic.Int64

type pane struct {
	t      *testing.T
	socket string
	w, h   int
}

// built is a program built once per test binary (the tmux tests run in
// parallel: the first to need it builds it, the others wait).
// buildDemo builds the harness; it skips when tmux is missing or with
// -short.
func buildDemo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the real-pane tests need it (apt-get install tmux)")
	}
	if testing.Short() {
		t.Skip("-short: skipping real tmux panes")
	}
	return testbin.Build(t, "./internal/tuidemo")
}

// buildLabmate builds the real program, cmd/labmate.
func buildLabmate(t *testing.T) string {
	t.Helper()
	buildDemo(t) // the tmux and -short checks
	return testbin.Build(t, "../cmd/labmate")
}

// startPane runs the demo in a new tmux server of its own (its own socket,
// so tests never touch each other or the user's tmux) in a w×h pane. env
// are extra variables for the program.
func startPane(t *testing.T, w, h int, env []string, args ...string) *pane {
	t.Helper()
	return startProgram(t, buildDemo(t), w, h, env, args...)
}

// startProgram runs bin in a w×h pane of a tmux server of its own.
//
// Nothing the pane depends on comes from the environment the tests run in:
// CI has no terminal, TERM unset or dumb, CI=true (which termenv reads as
// "not a terminal", so no colour) and maybe NO_COLOR. The server reads no
// configuration file (-f /dev/null) and gets its options on the command
// line; the program gets TERM, the locale and the colour variables set or
// unset explicitly, then env on top.
func startProgram(t *testing.T, bin string, w, h int, env []string, args ...string) *pane {
	t.Helper()
	return startProgramWith(t, bin, w, h, nil, env, args...)
}

// startProgramWith is startProgram with more global tmux options, set
// before the program starts.
func startProgramWith(t *testing.T, bin string, w, h int, options [][2]string, env []string, args ...string) *pane {
	t.Helper()
	p := &pane{t: t, socket: fmt.Sprintf("labmate-test-%d-%d", os.Getpid(), tmuxSeq.Add(1)), w: w, h: h}
	t.Cleanup(func() { exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	// LANG=ko_KR.UTF-8 would make go-runewidth count ambiguous characters
	// as two cells; the program must turn that off itself. A 256-colour
	// TERM without COLORTERM is what a learner's tmux usually has.
	// A shell stays in the pane after the program ends, so a test can see
	// the terminal the program left behind.
	// The GPU incident lab unless env says otherwise: with several labs
	// installed, labmate would otherwise ask.
	prog := "env" + unsetFlags(paneUnset) + " TERM=" + paneTerm + " LANG=ko_KR.UTF-8 LC_ALL=ko_KR.UTF-8 LABMATE_LAB=gpu-incident " +
		strings.Join(env, " ") + " " + bin + " " + strings.Join(args, " ")
	cmd := "exec sh -c '" + prog + "; echo " + exitMark + "$?; exec sleep 600'"
	// remain-on-exit lets a test look at the terminal after the program
	// ended.
	var tmuxArgs []string
	for _, o := range append([][2]string{
		{"default-terminal", paneTerm},
		{"default-shell", "/bin/sh"},
		{"remain-on-exit", "on"},
		{"status", "off"},
		{"escape-time", "0"},
	}, options...) {
		tmuxArgs = append(tmuxArgs, "set-option", "-g", o[0], o[1], ";")
	}
	tmuxArgs = append(tmuxArgs, "new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-s", "lab", cmd)
	p.tmux(append([]string{"-f", "/dev/null", "start-server", ";"}, tmuxArgs...)...)
	return p
}

// paneTerm is the pane's TERM (Debian ships its terminfo in ncurses-base).
const paneTerm = "tmux-256color"

// paneUnset are the variables that change how the program picks colours
// (termenv reads every one of them); the test's own environment must not
// leak them into the pane.
var paneUnset = []string{"CI", "NO_COLOR", "COLORTERM", "CLICOLOR", "CLICOLOR_FORCE", "COLORFGBG", "TERM_PROGRAM", "GOOGLE_CLOUD_SHELL"}

func unsetFlags(names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(" -u " + n)
	}
	return b.String()
}

const exitMark = "labmate-exited-rc="

// exited waits for the program to end and returns its exit status.
func (p *pane) exited() int {
	p.t.Helper()
	s, ok := p.waitUntil(func(s string) bool { return strings.Contains(s, exitMark) })
	if !ok {
		p.t.Fatalf("the program did not end:\n%s", s)
	}
	rest := s[strings.Index(s, exitMark)+len(exitMark):]
	rc, _ := strconv.Atoi(strings.Fields(rest)[0])
	return rc
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys types keys one tmux send-keys call each (like a person typing).
func (p *pane) keys(ks ...string) {
	p.t.Helper()
	for _, k := range ks {
		p.tmux("send-keys", "-t", "lab", k)
		time.Sleep(30 * time.Millisecond)
	}
}

func (p *pane) capture(escapes bool) string {
	p.t.Helper()
	args := []string{"capture-pane", "-p", "-t", "lab"}
	if escapes {
		args = append(args, "-e")
	}
	return p.tmux(args...)
}

// waitFor polls the screen until every want is on it and it stopped
// changing, and returns it.
func (p *pane) waitFor(wants ...string) string {
	p.t.Helper()
	deadline := time.Now().Add(patience)
	last := ""
	for {
		s := p.capture(false)
		ok := true
		for _, w := range wants {
			if !strings.Contains(s, w) {
				ok = false
			}
		}
		if ok && s == last {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("screen never showed %q:\n%s", wants, s)
		}
		last = s
		time.Sleep(80 * time.Millisecond)
	}
}

func (p *pane) resize(w, h int) {
	p.t.Helper()
	p.tmux("resize-window", "-t", "lab", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h))
	p.w, p.h = w, h
}

// waitUntil polls the screen until ok holds for two captures in a row
// (tmux delivers SIGWINCH on its own schedule) and returns it; on timeout
// it returns the last screen and false.
func (p *pane) waitUntil(ok func(string) bool) (string, bool) {
	p.t.Helper()
	return p.waitUntilFor(patience, ok)
}

// patience is the least time a test waits for what must come: a wait
// that is met returns at once, so a long one costs nothing when the code
// is right, and a loaded 2-core machine (the whole suite, or two burning
// loops beside it) still meets it. Callers' shorter windows say what they
// expect; they are raised to this.
const patience = 30 * time.Second

func (p *pane) waitUntilFor(d time.Duration, ok func(string) bool) (string, bool) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	prev := false
	for {
		s := p.capture(false)
		good := ok(s)
		if good && prev {
			return s, true
		}
		prev = good
		if time.Now().After(deadline) {
			return s, false
		}
		time.Sleep(80 * time.Millisecond)
	}
}

// pid is the program's process: the child of the pane's shell.
func (p *pane) pid() int {
	p.t.Helper()
	sh := strings.TrimSpace(p.tmux("display-message", "-p", "-t", "lab", "#{pane_pid}"))
	deadline := time.Now().Add(patience)
	for {
		b, _ := os.ReadFile("/proc/" + sh + "/task/" + sh + "/children")
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, err := strconv.Atoi(f[0])
			if err != nil {
				p.t.Fatal(err)
			}
			return n
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no program process under the pane's shell %s", sh)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *pane) format(f string) string {
	return strings.TrimSpace(p.tmux("display-message", "-p", "-t", "lab", f))
}

// checkScreen asserts what every screen must be: as tall as the pane, no
// row wider than it (go-runewidth, ambiguous = 1), Korean intact, the strip
// on top and the help line at the bottom (a row that overflowed would
// have wrapped and pushed them off).
func (p *pane) checkScreen(s string) []string {
	p.t.Helper()
	rows := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(rows) != p.h {
		p.t.Errorf("%dx%d: %d rows captured", p.w, p.h, len(rows))
	}
	for i, r := range rows {
		if w := narrow.StringWidth(r); w > p.w {
			p.t.Errorf("%dx%d: row %d is %d wide: %q", p.w, p.h, i, w, r)
		}
	}
	if strings.ContainsRune(s, '\uFFFD') {
		p.t.Errorf("replacement character on screen (Korean split?):\n%s", s)
	}
	if len(rows) > 0 && !strings.HasPrefix(rows[0], "labmate ") {
		p.t.Errorf("%dx%d: first row is not the step strip: %q", p.w, p.h, rows[0])
	}
	if len(rows) > 0 && !strings.Contains(rows[len(rows)-1], "q "+msg("tui.short.quit")) {
		p.t.Errorf("%dx%d: last row is not the help line: %q", p.w, p.h, rows[len(rows)-1])
	}
	return rows
}

// prefix is the first n characters of s (what surely fits one row).
func prefix(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}

func realLab(t *testing.T) *content.Lab {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

func TestTmuxSizesAndSteps(t *testing.T) {
	t.Parallel()
	lab := realLab(t)
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {100, 40}, {160, 50}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			p := startPane(t, sz[0], sz[1], nil)
			intro := p.waitFor("labmate", msg("tui.short.quit"))
			if !strings.Contains(intro, prefix(lab.Title, 12)) {
				t.Errorf("lab title %q not on the introduction:\n%s", lab.Title, intro)
			}
			rows := p.checkScreen(intro)
			help := rows[len(rows)-1]
			if len(rows) > 1 {
				help = rows[len(rows)-2] + rows[len(rows)-1]
			}
			if !strings.Contains(help, "n "+msg("tui.short.next")) || strings.Contains(help, "p "+msg("tui.short.prev")) {
				t.Errorf("introduction help line: %q", help)
			}
			for _, n := range []int{3, 1, 8} {
				s := lab.Steps[n-1]
				p.keys(strconv.Itoa(n))
				want := fmt.Sprintf("%d/%d %s", n, len(lab.Steps), s.Title)
				if sz[0] < 80 {
					want = prefix(want, 12)
				}
				scr := p.waitFor(want)
				rows := p.checkScreen(scr)
				last := rows[len(rows)-1]
				if len(rows) > 1 {
					last = rows[len(rows)-2] + " " + last
				}
				if !strings.Contains(last, "h ") {
					t.Errorf("step %d help line has no hint key: %q", n, last)
				}
				if n == 8 && strings.Contains(last, "n "+msg("tui.short.next")) {
					t.Errorf("last step offers next: %q", last)
				}
				if n == 1 && !strings.Contains(last, "p "+msg("tui.short.prev")) {
					t.Errorf("step 1 does not offer prev: %q", last)
				}
			}
			p.keys("q")
			if rc := p.exited(); rc != 0 {
				t.Errorf("q: exit status %d", rc)
			}
		})
	}
}

func TestTmuxHintLadder(t *testing.T) {
	t.Parallel()
	lab := realLab(t)
	p := startPane(t, 60, 30, nil)
	p.waitFor("labmate")
	p.keys("1")
	step := lab.Steps[0]
	p.waitFor("1/8")
	for i, h := range step.Hints {
		p.keys("h")
		// The first words of the hint, wrapped or not, are on screen.
		words := strings.Fields(h)
		s := p.waitFor(fmt.Sprintf("힌트 (%d/%d)", i+1, len(step.Hints)), words[0])
		p.checkScreen(s)
		// The hint is scrolled to the top: all of it is on screen, wrapped,
		// not cut at the edge (which the width check alone cannot tell).
		if !strings.Contains(squeeze(s), squeeze(h)) {
			t.Errorf("hint %d not whole on screen:\n%s", i+1, s)
		}
	}
	p.keys("h")
	s := p.waitFor(msg("tui.short.yes"), "y ")
	if !strings.Contains(s, "풀이를 열까요?") {
		t.Fatalf("no question before the solution:\n%s", s)
	}
	p.checkScreen(s)
	p.keys("y")
	s = p.waitFor(msg("tui.solution.title"))
	p.checkScreen(s)
	if strings.Contains(s, "풀이를 열까요?") {
		t.Error("question still shown after y")
	}
}

// The catch-up key in a real terminal at 60 columns: the plan and its
// question on screen, n leaves it with nothing written, y does it (the
// demo plan writes a file) and the view says so.
func TestTmuxCatchUpKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startPane(t, 60, 24, nil, "-catchup", dir)
	p.waitFor("labmate")
	p.keys("3")
	p.waitFor("3/8")
	p.keys("C")
	s := p.waitFor("이대로 따라잡을까요?", "99-nvidia.toml")
	p.checkScreen(s)
	p.keys("n")
	s = p.waitFor("아무것도 바꾸지 않았습니다")
	p.checkScreen(s)
	if _, err := os.Stat(filepath.Join(dir, "caught-up")); err == nil {
		t.Fatal("n wrote the catch-up")
	}
	p.keys("C")
	p.waitFor("이대로 따라잡을까요?")
	p.keys("y")
	// Each step as it is caught up, then how it ended.
	s = p.waitFor(msg("catchup.progress.step", "step", 2, "title", "데모 단계"), msg("catchup.progress.done", "step", 2), "3단계까지 따라잡았습니다")
	p.checkScreen(s)
	if b, err := os.ReadFile(filepath.Join(dir, "caught-up")); err != nil || string(b) != "3\n" {
		t.Errorf("after y: %q %v", b, err)
	}
}

func TestTmuxNoColor(t *testing.T) {
	t.Parallel()
	colourSGR := regexp.MustCompile(`\x1b\[[0-9;]*?(?:^|;)?(3[0-9]|4[0-9]|9[0-7]|10[0-7])(;[0-9;]*)?m`)
	p := startPane(t, 80, 24, []string{"NO_COLOR=1"})
	p.waitFor("labmate")
	p.keys("2", "G")
	p.waitFor("2/8")
	s := p.capture(true)
	if colourSGR.MatchString(s) || strings.Contains(s, "38;5;") || strings.Contains(s, "48;5;") {
		t.Errorf("colour escapes with NO_COLOR:\n%q", s)
	}
	// The same screen without NO_COLOR does have colour: the check above
	// can fail.
	c := startPane(t, 80, 24, nil)
	c.waitFor("labmate")
	c.keys("2")
	c.waitFor("2/8")
	if s := c.capture(true); !strings.Contains(s, "\x1b[38;5;") && !colourSGR.MatchString(s) {
		t.Errorf("no colour in a 256-colour tmux pane:\n%q", s)
	}
}

func TestTmuxResizeLeavesNoGarbage(t *testing.T) {
	t.Parallel()
	p := startPane(t, 100, 30, nil)
	p.waitFor("labmate")
	p.keys("2")
	before := p.waitFor("2/8")
	p.checkScreen(before)

	p.resize(60, 30)
	narrowScr, ok := p.waitUntil(func(s string) bool {
		// Redrawn for 60 columns, not the old frame cut by tmux: every row
		// fits and the help line is whole at the bottom.
		rows := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		for _, r := range rows {
			if narrow.StringWidth(r) > 60 {
				return false
			}
		}
		return s != before && strings.Contains(s, "2/8") && strings.Contains(rows[len(rows)-1], "q "+msg("tui.short.quit"))
	})
	if !ok {
		t.Fatalf("no re-wrapped screen at 60 columns:\n%s", narrowScr)
	}
	p.checkScreen(narrowScr)
	p.resize(100, 30)
	after, ok := p.waitUntil(func(s string) bool { return s == before })
	if !ok {
		t.Errorf("100 → 60 → 100 does not give the same screen back.\nbefore:\n%s\nafter:\n%s", before, after)
	}
	p.checkScreen(after)
}

func TestTmuxToastAndRegression(t *testing.T) {
	t.Parallel()
	p := startPane(t, 80, 24, nil)
	p.waitFor("labmate")
	p.keys("2")
	p.waitFor("2/8")
	pid := p.pid()
	// The demo makes the first unfinished step (2) pass on SIGUSR1.
	if err := syscallKill(pid, "USR1"); err != nil {
		t.Fatal(err)
	}
	s := p.waitFor(msg("tui.toast.passed", "steps", 2))
	if !strings.Contains(s, "3단계") {
		t.Errorf("toast does not say how to go on:\n%s", s)
	}
	p.checkScreen(s)
	if !strings.Contains(s, "2/8") {
		t.Error("a pass moved the learner")
	}
	// SIGUSR2: step 1 fails again.
	if err := syscallKill(pid, "USR2"); err != nil {
		t.Fatal(err)
	}
	s = p.waitFor("통과했던 1단계가 다시 미통과입니다")
	p.checkScreen(s)
	p.keys("Enter")
	p.waitFor("1/8")
}

func TestTmuxCopyGoesToTmuxBuffer(t *testing.T) {
	t.Parallel()
	lab := realLab(t)
	targets := copyTargets(lab.Steps[0].Body, fixture.Root)
	if len(targets) == 0 {
		t.Fatal("step 1 of the lab names no command or path to copy: this test needs one")
	}
	p := startPane(t, 80, 24, nil)
	p.waitFor("labmate")
	p.keys("1")
	p.waitFor("1/8")
	p.keys("c")
	s := p.waitFor("tmux")
	p.checkScreen(s)
	if got := p.tmux("show-buffer"); got != targets[0] {
		t.Errorf("tmux buffer = %q, want %q", got, targets[0])
	}
}

// After SIGTERM, SIGHUP and SIGINT the program ends and leaves the
// terminal as it found it: alternate screen off, cursor visible.
func TestTmuxSignalsRestoreTerminal(t *testing.T) {
	t.Parallel()
	for _, sig := range []string{"TERM", "HUP", "INT"} {
		t.Run(sig, func(t *testing.T) {
			p := startPane(t, 80, 24, nil)
			p.waitFor("labmate")
			if p.format("#{alternate_on}") != "1" || p.format("#{cursor_flag}") != "0" {
				t.Fatalf("not in the alternate screen with the cursor hidden: alt=%s cursor=%s", p.format("#{alternate_on}"), p.format("#{cursor_flag}"))
			}
			if err := syscallKill(p.pid(), sig); err != nil {
				t.Fatal(err)
			}
			p.exited()
			if alt, cur := p.format("#{alternate_on}"), p.format("#{cursor_flag}"); alt != "0" || cur != "1" {
				t.Errorf("after SIG%s: alternate screen %s, cursor visible %s", sig, alt, cur)
			}
		})
	}
	// Killing the pane (what closing a tmux split does) hangs the program's
	// terminal up: it must go away, not linger.
	t.Run("kill-pane", func(t *testing.T) {
		p := startPane(t, 80, 24, nil)
		p.waitFor("labmate")
		pid := p.pid()
		p.tmux("kill-pane", "-t", "lab")
		deadline := time.Now().Add(patience)
		for syscallKill(pid, "0") == nil {
			if time.Now().After(deadline) {
				t.Fatalf("the program outlived its pane by %v", patience)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// A panic in a command (here: the rescan callback) ends the program and
// restores the terminal too, and the panic's message and stack are left on
// the main screen for the learner to see (on the alternate screen they
// would vanish with it).
func TestTmuxPanicRestoresTerminal(t *testing.T) {
	t.Parallel()
	p := startPane(t, 80, 24, []string{"TUIDEMO_PANIC=1"})
	p.waitFor("labmate")
	p.keys("r")
	if rc := p.exited(); rc == 0 {
		t.Error("a panic ended with status 0")
	}
	if alt, cur := p.format("#{alternate_on}"), p.format("#{cursor_flag}"); alt != "0" || cur != "1" {
		t.Errorf("after a panic: alternate screen %s, cursor visible %s", alt, cur)
	}
	// The whole main screen with its history, wrapped lines joined: the
	// stack is taller than the pane.
	s := p.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "lab")
	head := strings.SplitN(msg("tui.panicked", "value", "tuidemo: rescan panics on purpose"), "\n", 2)[0]
	for _, want := range []string{head, "goroutine ", "tui/internal/tuidemo/main.go:"} {
		if !strings.Contains(s, want) {
			t.Errorf("after a panic the main screen does not show %q:\n%s", want, s)
		}
	}
}

// Idle means idle: with nothing changing, the TUI uses no more CPU than
// bubbletea itself does with a static view (its frame ticker runs at
// FrameRate whatever happens; see terminal.FrameRate). Both run side by side in
// panes of the same size, so load on the machine weighs on both alike;
// CPU time is read from /proc/<pid>/stat (utime+stime). Any loop of
// labmate's own while idle (a timer, a redraw, polling) costs more than
// the margin and fails the test.
func TestTmuxIdleCPU(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Fatal("no /proc here: idle CPU cannot be measured")
	}
	p := startPane(t, 100, 40, nil)
	base := startPane(t, 100, 40, nil, "-bare")
	p.waitFor("labmate")
	base.waitFor("labmate idle baseline")
	p.keys("2")
	p.waitFor("2/8")
	pids := []int{p.pid(), base.pid()}
	time.Sleep(time.Second)
	const window = 15 * time.Second
	ticks := cpuTicks(t, pids, window)
	pct := func(n int64) float64 { return float64(n) / 100 / window.Seconds() * 100 }
	t.Logf("idle over %s: TUI %d ticks (%.2f%% of one CPU), bare bubbletea at %d fps %d ticks (%.2f%%)",
		window, ticks[0], pct(ticks[0]), terminal.FrameRate, ticks[1], pct(ticks[1]))
	// 5 ticks over 15 s: 0.33% of one CPU above what bubbletea costs.
	if extra := ticks[0] - ticks[1]; extra > 5 {
		t.Errorf("idle TUI uses %d ticks (%.2f%% of one CPU) more than bare bubbletea over %s", extra, pct(extra), window)
	}
}

// cpuTicks returns the CPU time (utime+stime, clock ticks of 10 ms) each
// process uses over the same window.
func cpuTicks(t *testing.T, pids []int, window time.Duration) []int64 {
	t.Helper()
	read := func() []int64 {
		out := make([]int64, len(pids))
		for i, pid := range pids {
			out[i] = procTicks(t, pid)
		}
		return out
	}
	start := read()
	time.Sleep(window)
	end := read()
	for i := range end {
		end[i] -= start[i]
	}
	return end
}

func procTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// idleCPU samples a process's CPU time over window and returns it as a
// percentage of one CPU. Clock ticks are 100 a second on Linux.
func idleCPU(t *testing.T, pid int, window time.Duration) float64 {
	t.Helper()
	t0 := time.Now()
	used := cpuTicks(t, []int{pid}, window)[0]
	return float64(used) / 100 / time.Since(t0).Seconds() * 100
}

// TestTmuxRealBinary drives the real labmate binary (cmd/labmate) without
// a cluster on a lab root holding the reference files of steps 1 and 2:
// the program the learner runs, not the harness, reading real files.
func TestTmuxRealBinary(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "gpuop")
	for _, f := range []string{"etc/containerd/config.toml", "etc/containerd/conf.d/99-nvidia.toml"} {
		b, err := os.ReadFile(filepath.Join("../content/labs/gpu-incident/reference", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		if err := os.WriteFile(filepath.Join(root, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Config and state of their own, so the learner's are neither read
	// nor written.
	p := startProgram(t, bin, 80, 24, xdgEnv(t), "--root", root, "--no-cluster")
	lab := realLab(t)
	s := p.waitFor("labmate", "1"+checks.Passed.Glyph()+" 2"+checks.Passed.Glyph(), "2/8", msg("tui.short.quit"))
	rows := p.checkScreen(s)
	if !strings.Contains(rows[0], "3"+checks.Failed.Glyph()) {
		t.Errorf("step 3 (no merge.txt) is not failed in the strip: %q", rows[0])
	}
	if notices := prefix(msg("tui.toast.notices", "n", 1, "key", "enter"), 10); strings.Contains(s, notices) {
		t.Errorf("start-up notices with a fresh config:\n%s", s)
	}
	p.keys("1")
	s = p.waitFor("1/8 "+prefix(lab.Steps[0].Title, 8), checks.Passed.Glyph()+" "+msg("status.passed"))
	p.checkScreen(s)
	p.keys("3")
	s = p.waitFor("3/8 "+prefix(lab.Steps[2].Title, 8), checks.Failed.Glyph()+" "+msg("status.failed"))
	p.checkScreen(s)
	p.keys("q")
	if rc := p.exited(); rc != 0 {
		t.Errorf("labmate exited %d after q", rc)
	}
}

// TestTmuxRootMissing is a learner who is not the LabHub pod's root, the
// first time, with the real binary in a 60-column pane: the lab root is
// in their home and not there yet; the footer says where the files go
// and the help line offers m; m makes only the directory; a file saved
// there then turns its step green (the watcher follows the root that
// appeared).
func TestTmuxRootMissing(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	env := xdgEnv(t)
	home := strings.TrimPrefix(env[len(env)-1], "HOME=")
	root := filepath.Join(home, "gpuop")
	p := startProgram(t, bin, 60, 24, env, "--no-cluster")
	s := p.waitFor("labmate", "m "+msg("tui.short.make_root"), "실습 파일은")
	p.checkScreen(s)
	if _, err := os.Stat(root); err == nil {
		t.Fatal("the root was made before the learner pressed m")
	}
	p.keys("m")
	s = p.waitFor("만들었습니다")
	p.checkScreen(s)
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
		t.Fatalf("after m: %v, %d entries (only the directory)", err, len(entries))
	}
	if strings.Contains(s, "m "+msg("tui.short.make_root")) {
		t.Errorf("m still offered once the root is made:\n%s", s)
	}
	b, err := os.ReadFile("../content/labs/gpu-incident/reference/etc/containerd/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "etc", "containerd"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "etc", "containerd", "config.toml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	p.checkScreen(p.waitFor("1" + checks.Passed.Glyph()))
	p.keys("q")
	if rc := p.exited(); rc != 0 {
		t.Errorf("labmate exited %d after q", rc)
	}
}

// xdgEnv gives the program config and state directories of its own.
func xdgEnv(t *testing.T) []string {
	d := t.TempDir()
	return []string{"XDG_CONFIG_HOME=" + filepath.Join(d, "config"), "XDG_STATE_HOME=" + filepath.Join(d, "state"), "HOME=" + d}
}

// TestTmuxReplay plays the built-in reference run with the real binary,
// in a narrow pane: the replay marker and the replay's status in the
// header, pause, a speed change, jump to the next change, every step
// green at the end (ten times faster), and an idle program once paused
// or finished. It starts at the recorded pace: at ten times, the run's
// 34 s are over in a few, and a loaded machine could end it before the
// pause is pressed.
func TestTmuxReplay(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	tr, err := trace.ReferenceOf(realLab(t))
	if err != nil {
		t.Fatalf("no reference run built in: %v", err)
	}
	total := len(tr.Records)
	marker := content.Msg("trace.banner_static", "name", trace.DisplayName(tr.Name))
	position := regexp.MustCompile(fmt.Sprintf(`\| (\d+)/%d \|`, total))
	pos := func(row string) int {
		m := position.FindStringSubmatch(row)
		if m == nil {
			return -1
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	header := func(s string) (strip, status string) {
		rows := strings.Split(s, "\n")
		if len(rows) < 2 {
			return "", ""
		}
		return rows[0], rows[1]
	}

	p := startProgram(t, bin, 60, 30, xdgEnv(t), "replay", "--speed", "1")
	s, ok := p.waitUntil(func(s string) bool {
		_, st := header(s)
		return pos(st) >= 0 || strings.Contains(s, exitMark)
	})
	if !ok || strings.Contains(s, exitMark) {
		t.Fatalf("no replay status on screen:\n%s", s)
	}
	p.checkScreen(s)
	strip, status := header(s)
	if !strings.Contains(strip, marker) {
		t.Errorf("no replay marker %q in the strip: %q", marker, strip)
	}
	if !strings.Contains(status, trace.SpeedLabel(1)) {
		t.Errorf("status row does not say the speed: %q", status)
	}
	if help := strings.Join(p.checkScreen(s)[p.h-2:], " "); !strings.Contains(help, "s "+msg("tui.short.pause")) || !strings.Contains(help, "x "+msg("tui.short.next_change")) {
		t.Errorf("help line does not offer the replay keys: %q", help)
	}

	// s pauses: the status says so and the position stops.
	p.keys("s")
	s, ok = p.waitUntil(func(s string) bool {
		_, st := header(s)
		return strings.Contains(st, msg("trace.state_paused")) || strings.Contains(st, msg("trace.state_done"))
	})
	_, status = header(s)
	if !ok || !strings.Contains(status, msg("trace.state_paused")) {
		t.Fatalf("s did not pause the replay:\n%s", s)
	}
	p.checkScreen(s)
	at := pos(status)
	stripPaused, _ := header(s)
	t.Logf("paused at record %d of %d", at, total)
	time.Sleep(time.Second)
	if _, now := header(p.capture(false)); pos(now) != at {
		t.Errorf("paused at %d, a second later at %d", at, pos(now))
	}
	pid := p.pid()
	if pct := idleCPU(t, pid, 3*time.Second); pct >= 2 {
		t.Errorf("paused replay uses %.2f%% CPU", pct)
	} else {
		t.Logf("paused replay: %.2f%% of one CPU over 3 s", pct)
	}

	// + while paused: ten times faster, and still paused.
	p.keys("+")
	s, ok = p.waitUntil(func(s string) bool {
		_, st := header(s)
		return strings.Contains(st, trace.SpeedLabel(10)) && strings.Contains(st, msg("trace.state_paused"))
	})
	if !ok {
		t.Fatalf("+ did not make the paused replay ten times faster:\n%s", s)
	}
	if _, now := header(s); pos(now) != at {
		t.Errorf("paused at %d, at %d after a speed change", at, pos(now))
	}

	// x jumps to the next change of a step's status and stays paused.
	p.keys("x")
	s, ok = p.waitUntil(func(s string) bool {
		strip, st := header(s)
		return pos(st) > at && strings.Contains(st, msg("trace.state_paused")) && strip != stripPaused
	})
	if !ok {
		t.Fatalf("x did not move to the next change (was at %d, strip %q):\n%s", at, stripPaused, s)
	}
	p.checkScreen(s)

	// Resumed at ten times the recorded pace, the reference run ends with
	// every step passed.
	p.keys("s")
	allPassed := func(strip string) bool {
		for n := 1; n <= 8; n++ {
			if !strings.Contains(strip, fmt.Sprintf("%d%s", n, checks.Passed.Glyph())) {
				return false
			}
		}
		return true
	}
	start := time.Now()
	s, ok = p.waitUntilFor(30*time.Second, func(s string) bool {
		strip, st := header(s)
		return allPassed(strip) && strings.Contains(st, msg("trace.state_done"))
	})
	if !ok {
		t.Fatalf("the replay did not end with all steps passed within 30 s:\n%s", s)
	}
	t.Logf("resumed replay ended with 8/8 passed after %s", time.Since(start).Round(100*time.Millisecond))
	rows := p.checkScreen(s)
	if _, st := header(s); pos(st) != total {
		t.Errorf("finished at %d of %d records: %q", pos(st), total, st)
	}
	if !strings.Contains(rows[0], "8/8") {
		t.Errorf("strip does not count 8/8: %q", rows[0])
	}
	if pct := idleCPU(t, pid, 3*time.Second); pct >= 2 {
		t.Errorf("finished replay uses %.2f%% CPU", pct)
	} else {
		t.Logf("finished replay: %.2f%% of one CPU over 3 s", pct)
	}

	// After the end, pause, speed and next change do nothing: the help
	// line no longer offers them and their keys change nothing.
	if help := strings.Join(rows[p.h-2:], " "); strings.Contains(help, "s "+msg("tui.short.pause")) ||
		strings.Contains(help, "+ "+msg("tui.short.speed")) || strings.Contains(help, "x "+msg("tui.short.next_change")) {
		t.Errorf("help line offers the replay keys after the end: %q", help)
	}
	_, endStatus := header(s)
	p.keys("+", "x", "s")
	time.Sleep(500 * time.Millisecond)
	after := p.capture(false)
	p.checkScreen(after)
	if _, now := header(after); now != endStatus {
		t.Errorf("keys after the end changed the replay: %q, was %q", now, endStatus)
	}

	p.keys("q")
	if rc := p.exited(); rc != 0 {
		t.Errorf("labmate replay exited %d after q", rc)
	}
}

// TestTmuxLabPicker: with several labs installed and nothing choosing one
// (no --lab, no LABMATE_LAB, no earlier choice), labmate opens on a
// picker in a 60-column pane; the lab picked opens, and the next start at
// the same root opens it again without asking.
func TestTmuxLabPicker(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	env := append(xdgEnv(t), "LABMATE_LAB=")
	root := t.TempDir()
	p := startProgram(t, bin, 60, 24, env, "--root", root, "--no-cluster")
	title := msg("tui.picker.title")
	s := p.waitFor(append([]string{title}, content.IDs()...)...)
	checkPickerRows(t, s, 60)
	// It is told the window's size (as the TUI is, by terminal.Run) and
	// lays the list out again for a narrower pane.
	p.resize(44, 24)
	s, ok := p.waitUntil(func(s string) bool { return strings.Contains(s, title) && fitsWidth(s, 44) })
	if !ok {
		t.Errorf("the picker did not fit a pane resized to 44 columns:\n%s", s)
	}
	p.resize(60, 24)
	p.waitFor(title)
	drv, err := content.Load("driver-reboot")
	if err != nil {
		t.Fatal(err)
	}
	steps := fmt.Sprintf("0/%d", len(drv.Steps))
	// IDs sorted: driver-reboot first. The cursor wraps from the top to
	// the last lab and back down to the first, and enter opens the lab
	// under it.
	ids := content.IDs()
	p.keys("k")
	p.waitFor(fmt.Sprintf("▸ %d %s", len(ids), ids[len(ids)-1]))
	p.keys("j", "Enter")
	s = p.waitFor("labmate", steps)
	p.checkScreen(s)
	p.keys("q")
	if rc := p.exited(); rc != 0 {
		t.Fatalf("labmate exited %d after q", rc)
	}

	again := startProgram(t, bin, 60, 24, env, "--root", root, "--no-cluster")
	s = again.waitFor("labmate", steps)
	if strings.Contains(s, msg("tui.picker.title")) {
		t.Errorf("the picker came back for a root whose lab was chosen:\n%s", s)
	}
	again.keys("q")
	again.exited()

	// Leaving the picker without a choice ends labmate with status 0 and
	// gives the terminal back: the main screen, the cursor shown, nothing
	// of the picker left on it.
	left := startProgram(t, bin, 60, 24, env, "--root", t.TempDir(), "--no-cluster")
	left.waitFor(title)
	left.keys("q")
	if rc := left.exited(); rc != 0 {
		t.Errorf("q in the picker: labmate exited %d", rc)
	}
	if alt, cur := left.format("#{alternate_on}"), left.format("#{cursor_flag}"); alt != "0" || cur != "1" {
		t.Errorf("after the picker: alternate screen %s, cursor visible %s", alt, cur)
	}
	if s := left.capture(false); strings.Contains(s, title) {
		t.Errorf("the picker stayed on the main screen:\n%s", s)
	}
}

// checkPickerRows fails for a picker row wider than w cells.
func checkPickerRows(t *testing.T, s string, w int) {
	t.Helper()
	for i, r := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if n := narrow.StringWidth(r); n > w {
			t.Errorf("picker row %d is %d wide: %q", i, n, r)
		}
	}
}

// fitsWidth reports whether no row of s is wider than w cells.
func fitsWidth(s string, w int) bool {
	for _, r := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if narrow.StringWidth(r) > w {
			return false
		}
	}
	return true
}
