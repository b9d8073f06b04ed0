// Package plain is the companion without the full-screen view, for a
// screen reader or a braille display: sentences in order, one to a line,
// each change of a step's state said once as a line, and every key of
// the TUI a command typed on a line of its own (help lists them). It
// writes no colour unless asked and never moves the cursor. It reads a
// run's updates as check --watch does (labrun/textout) and the same
// Options the TUI gets.
package plain

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/muesli/termenv"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/editor"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/labkit/compare"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/keys"
)

// Config is what plain mode takes besides the TUI's options.
type Config struct {
	In  io.Reader // commands, a line each
	Out io.Writer
	// Width is the lines' width (pages are wrapped to it); 80 when 0.
	Width int
	// Color words statuses in colour (SGR only); off unless asked.
	Color bool
	// Editor is where the edit command finds the editor (the process's
	// environment when zero).
	Editor editor.Env
	// Tmux and Pane say the companion runs in that tmux pane: the editor
	// opens in a pane beside it.
	Tmux       bool
	Pane       string
	RunCommand func(argv []string) error // tmux's split; nil: run it
}

// companion is one plain session.
type companion struct {
	opts tui.Options
	cfg  Config
	lab  *content.Lab
	out  *bufio.Writer

	page     int
	report   *engine.Report
	said     bool // the first ready report was summed up
	hints    map[int]tui.HintProgress
	asking   bool // the solution question is open
	copyNext map[int]int
	passedAt map[int]time.Time
	// caughtUpAt: the catch-ups of the progress and of this run.
	caughtUpAt map[int]time.Time
	// madeRoot: make_root was typed; it applies no more.
	madeRoot bool
	// ctx is the session's; catching is a catch-up's plan read out and
	// waiting for yes or no (nil: none).
	ctx      context.Context
	catching tui.CatchUpPlan
}

// Run runs plain mode until quit, the end of the input or ctx.
func Run(ctx context.Context, opts tui.Options, cfg Config) error {
	if cfg.Width <= 0 {
		cfg.Width = 80
	}
	if cfg.Editor.Getenv == nil {
		cfg.Editor = editor.System()
	}
	page.NarrowAmbiguous()
	c := &companion{opts: opts, cfg: cfg, lab: termtext.Deep(opts.Lab), out: bufio.NewWriter(cfg.Out),
		hints: map[int]tui.HintProgress{}, copyNext: map[int]int{}, passedAt: map[int]time.Time{}, ctx: ctx}
	defer c.dropCatchUp()
	if c.lab == nil {
		c.lab = &content.Lab{Title: "labmate"}
	}
	c.opts.Root = termtext.Clean(opts.Root)
	for n, p := range opts.Progress {
		c.hints[n] = p
	}
	for n, at := range opts.PassedAt {
		c.passedAt[n] = at
	}
	c.caughtUpAt = maps.Clone(opts.CaughtUpAt)
	if c.caughtUpAt == nil {
		c.caughtUpAt = map[int]time.Time{}
	}
	if opts.StartPage > 0 && opts.StartPage <= len(c.lab.Steps) {
		c.page = opts.StartPage
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(cfg.In)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	c.say("plain.welcome", "title", c.lab.Title)
	c.place()
	c.showPage()
	c.flush()
	updates := opts.Updates
	var acks <-chan class.Ack
	if opts.Hands != nil {
		acks = opts.Hands.Acks()
	}
	for {
		select {
		case <-ctx.Done():
			return c.flush()
		case u, ok := <-updates:
			if !ok {
				updates = nil
				continue
			}
			c.update(termtext.Deep(u))
		case a, ok := <-acks:
			if !ok {
				acks = nil
				continue
			}
			if a.Acknowledges(c.opts.Hands.Hand()) {
				c.say("tui.hand.acked")
			}
		case l, ok := <-lines:
			if !ok || c.command(l) {
				c.say("plain.bye")
				return c.flush()
			}
		}
		if err := c.flush(); err != nil {
			return err
		}
	}
}

func (c *companion) flush() error { return c.out.Flush() }

// line writes one line: text wrapped to the width, never a control.
func (c *companion) line(s string) {
	for _, l := range strings.Split(page.Untab(s), "\n") {
		for _, w := range page.Wrap(l, c.cfg.Width, "", "") {
			c.out.WriteString(strings.TrimRight(w, " ") + "\n")
		}
	}
}

func (c *companion) say(key string, kv ...any) { c.line(content.Msg(key, kv...)) }

// status words a status, in its colour when asked.
func (c *companion) status(st checks.Status) string {
	w := content.Msg("status." + string(st))
	if !c.cfg.Color {
		return w
	}
	codes := map[checks.Status]termenv.Color{checks.Passed: termenv.ANSIGreen, checks.Failed: termenv.ANSIRed,
		checks.Waiting: termenv.ANSIYellow, checks.Error: termenv.ANSIMagenta}
	if col, ok := codes[st]; ok {
		return termenv.String(w).Foreground(col).String()
	}
	return w
}

func (c *companion) step(n int) *content.Step { return c.lab.Step(n) }

func (c *companion) result(n int) *engine.StepResult {
	if c.report == nil {
		return nil
	}
	return c.report.Step(n)
}

// update says what changed: the first ready report as a summary, then
// each step whose state changed, once.
func (c *companion) update(u labrun.Update) {
	rep := u.Report
	c.report = &rep
	for _, n := range u.FirstPassed {
		if _, ok := c.passedAt[n]; !ok {
			c.passedAt[n] = rep.Time
		}
	}
	if !rep.Ready {
		return
	}
	if !c.said {
		c.said = true
		c.summary()
		if s := c.step(c.page); s != nil {
			c.checks(s.Number)
		}
		return
	}
	for _, ch := range u.Changes {
		s := c.step(ch.Step)
		if s == nil {
			continue
		}
		c.say("plain.changed", "step", ch.Step, "title", s.Title, "from", c.status(ch.From), "to", c.status(ch.To))
		if ch.To == checks.Failed || ch.To == checks.Error {
			if r := c.result(ch.Step); r != nil {
				if f := checks.FirstFailing(r.Checks); f != nil {
					c.line(f.Message)
				}
			}
		}
	}
	if u.SinceReady && rep.AllPassed() && len(u.Changes) > 0 {
		c.say("plain.all_passed")
	}
}

// summary is how the lab stands.
func (c *companion) summary() {
	if c.report == nil {
		c.say("plain.no_report")
		return
	}
	c.say("plain.summary", "passed", c.report.Passed(), "total", len(c.report.Steps))
	if cur := c.report.Current(); cur > 0 {
		if s := c.step(cur); s != nil {
			c.say("plain.current", "step", cur, "title", s.Title)
		}
	}
	for _, p := range c.report.Problems {
		c.say("plain.problem", "text", p)
	}
}

// showPage reads the page out: its title and its text.
func (c *companion) showPage() {
	if s := c.step(c.page); s != nil {
		c.say("plain.step_title", "step", s.Number, "total", len(c.lab.Steps), "title", s.Title)
		c.markdown(s.Body)
		return
	}
	c.say("plain.intro_title", "title", c.lab.Title)
	c.markdown(c.lab.Intro)
}

// markdown writes a page as plain text: glamour without colour, the
// blocks a blank line apart.
func (c *companion) markdown(md string) {
	blocks, _ := page.Render(content.Expand(md, c.opts.Root), c.cfg.Width, page.Look{Profile: termenv.Ascii})
	for i, b := range blocks {
		if i > 0 {
			c.out.WriteString("\n")
		}
		for _, l := range b {
			c.out.WriteString(strings.TrimRight(l, " ") + "\n")
		}
	}
}

// checks reads step n's checks out.
func (c *companion) checks(n int) {
	r := c.result(n)
	if r == nil {
		c.say("plain.no_report")
		return
	}
	c.say("plain.checks", "step", n, "status", c.status(r.Status), "passed", r.PassedChecks(), "total", len(r.Checks))
	for _, ch := range r.Checks {
		c.say("plain.check", "status", c.status(ch.Status), "text", ch.Message)
		if ch.Status == checks.Passed {
			continue
		}
		for _, f := range []struct{ key, val string }{{"tui.checks.expected", ch.Expected}, {"tui.checks.observed", ch.Observed}, {"tui.checks.where", ch.Where}} {
			if f.val != "" {
				c.line(content.Msg(f.key) + " " + f.val)
			}
		}
	}
}

// answered takes word as the answer to the question open (a catch-up's
// plan, the solution), if it is one.
func (c *companion) answered(word string) bool {
	switch {
	case c.catching != nil && yes(word):
		p := c.catching
		c.catching = nil
		c.doCatchUp(p)
	case c.catching != nil && no(word):
		c.dropCatchUp()
		c.say("catchup.cancelled")
	case c.asking && yes(word):
		c.asking = false
		c.solution()
	case c.asking && no(word):
		c.asking = false
		c.say("plain.solution_kept")
	default:
		return false
	}
	return true
}

// command does what a typed line says; quit is true to end.
func (c *companion) command(l string) (quit bool) {
	word, arg, _ := strings.Cut(strings.TrimSpace(l), " ")
	word = strings.ToLower(word)
	if c.answered(word) {
		return false
	}
	if n, err := strconv.Atoi(word); err == nil {
		c.goPage(n)
		return false
	}
	switch action(word) {
	case "":
		if word != "" {
			c.say("plain.unknown", "word", word)
		}
	case "quit":
		return true
	case "help":
		c.help()
	case "next":
		c.goPage(c.page + 1)
	case "prev":
		c.goPage(c.page - 1)
	case "go":
		if n, err := strconv.Atoi(strings.TrimSpace(arg)); err == nil {
			c.goPage(n)
		} else if c.report != nil && c.report.Current() > 0 {
			c.goPage(c.report.Current())
		}
	case "read":
		c.showPage()
	case "checks":
		if s := c.step(c.page); s != nil {
			c.checks(s.Number)
		} else {
			c.summary()
		}
	case "hint":
		c.hint()
	case "observed":
		c.observed()
	case "copy":
		c.copy()
	case "rescan":
		if c.opts.Rescan != nil {
			c.opts.Rescan()
			c.say("tui.toast.rescan")
		}
	case "edit":
		c.edit()
	case "compare":
		c.compare()
	case "ending":
		c.ending()
	case "make_root":
		c.makeRoot()
	case "hand":
		c.hand(arg)
	case "catch_up":
		c.catchUp()
	case "pause", "speed", "next_change":
		c.replay(action(word))
	}
	return false
}

// aliases are the words each command answers to besides its action's
// name: the TUI's default key and Korean words.
var aliases = map[string][]string{
	"quit": {"q", "exit", "종료"}, "help": {"?", "도움말", "h?"}, "next": {"n", "다음"}, "prev": {"p", "이전"},
	"go": {"enter", "가기"}, "read": {"l", "읽기", "page"}, "checks": {"s", "검사", "status"},
	"hint": {"h", "힌트"}, "observed": {"o", "관측"}, "copy": {"c", "복사"}, "rescan": {"r", "재검사"},
	"edit": {"e", "편집"}, "compare": {"v", "비교"}, "ending": {"t", "마무리"}, "make_root": {"m", "만들기"},
	"hand": {"a", "손", "손들기"}, "catch_up": {"catchup", "따라잡기"},
	"pause": {"멈춤"}, "speed": {"+", "배속"}, "next_change": {"x", "다음변화"},
}

// commandOrder is help's order.
var commandOrder = []string{"help", "read", "checks", "next", "prev", "go", "hint", "observed", "copy", "rescan", "edit", "compare", "ending", "make_root", "hand", "catch_up", "pause", "speed", "next_change", "quit"}

func action(word string) string {
	for a, ws := range aliases {
		if word == a {
			return a
		}
		for _, w := range ws {
			if w == word {
				return a
			}
		}
	}
	return ""
}

// help lists every command with its words and what it does: the TUI's
// keys' own help where the command is a key of the TUI.
func (c *companion) help() {
	c.say("plain.help_title")
	for _, a := range commandOrder {
		if (a == "pause" || a == "speed" || a == "next_change") && c.opts.Replay == nil || a == "make_root" && !c.canMakeRoot() || a == "hand" && c.opts.Hands == nil ||
			a == "catch_up" && c.opts.PlanCatchUp == nil {
			continue
		}
		desc := ""
		for _, s := range keys.Specs {
			if s.Name == a {
				desc = s.Desc()
			}
		}
		if own := "plain.cmd." + a; desc == "" || content.HasMsg(own) {
			desc = content.Msg(own) // plain mode's own, or how it differs
		}
		c.line(fmt.Sprintf("%s (%s): %s", a, strings.Join(aliases[a], ", "), desc))
	}
	c.say("plain.help_numbers", "max", len(c.lab.Steps))
}

// yes and no are the answers to a question plain mode asks.
func yes(word string) bool { return slices.Contains([]string{"y", "yes", "예", "네"}, word) }
func no(word string) bool {
	return slices.Contains([]string{"n", "no", "아니오", "아니요"}, word)
}

// catchUp plans the catch-up to the step on the page (the TUI's key,
// `labmate catch-up --to N`) and reads the plan out; yes does it, no
// leaves everything as it is.
func (c *companion) catchUp() {
	s := c.step(c.page)
	switch {
	case c.opts.PlanCatchUp == nil:
		c.say("plain.catch_up_none")
		return
	case s == nil || s.Number < 2:
		c.say("plain.catch_up_where")
		return
	}
	c.dropCatchUp()
	c.say("plain.catch_up_planning", "step", s.Number)
	c.flush()
	p, err := c.opts.PlanCatchUp(c.ctx, s.Number)
	if err != nil {
		c.line(termtext.Clean(err.Error()))
		return
	}
	if p.Empty() {
		c.line(termtext.Clean(p.Result()))
		p.Close()
		return
	}
	for _, l := range p.Lines() {
		c.line(termtext.Clean(l))
	}
	c.catching = p
	c.say("plain.catch_up_question")
}

// doCatchUp carries a plan out, each step said as it is done, then how
// it ended, and has the files read again.
func (c *companion) doCatchUp(p tui.CatchUpPlan) {
	defer p.Close()
	err := p.Do(c.ctx, lineWriter{c})
	for n, at := range p.CaughtUp() {
		if _, ok := c.caughtUpAt[n]; !ok {
			c.caughtUpAt[n] = at
		}
	}
	if err != nil {
		c.line(termtext.Clean(err.Error()))
		return
	}
	c.line(termtext.Clean(p.Result()))
	if c.opts.Rescan != nil {
		c.opts.Rescan()
	}
}

// dropCatchUp lets go of a plan that was not done.
func (c *companion) dropCatchUp() {
	if c.catching != nil {
		c.catching.Close()
		c.catching = nil
	}
}

// lineWriter says what is written to it as lines, at once.
type lineWriter struct{ c *companion }

func (w lineWriter) Write(b []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		w.c.line(termtext.Clean(l))
	}
	return len(b), w.c.flush()
}

// hand lowers a raised hand, or raises one with the rest of the line as
// its note (in a class; without one it says there is none).
func (c *companion) hand(note string) {
	h := c.opts.Hands
	switch {
	case h == nil:
		c.say("plain.no_class")
	case h.Hand() != nil:
		h.LowerHand()
		c.say("tui.hand.lowered")
	default:
		h.RaiseHand(strings.TrimSpace(note)) // the tracker clips it
		if h.Hand() == nil {
			c.say("tui.hand.no_step")
			return
		}
		c.say("tui.hand.raised")
	}
}

func (c *companion) goPage(p int) {
	if p < 0 || p > len(c.lab.Steps) {
		c.say("plain.no_page", "max", len(c.lab.Steps))
		return
	}
	c.page = p
	c.asking = false
	c.showPage()
	if s := c.step(p); s != nil && c.report != nil {
		c.checks(s.Number)
	}
	if c.opts.OnPage != nil {
		if err := c.opts.OnPage(p); err != nil {
			c.say("tui.toast.save_failed", "err", err)
		}
	}
}

func (c *companion) hint() {
	s := c.step(c.page)
	if s == nil {
		c.say("plain.not_step")
		return
	}
	p := c.hints[s.Number]
	switch {
	case p.Seen < len(s.Hints):
		p.Seen++
		c.hints[s.Number] = p
		c.say("plain.hint", "n", p.Seen, "total", len(s.Hints), "text", s.Hints[p.Seen-1])
		c.save(s.Number)
	case !p.Solution:
		c.asking = true
		c.say("plain.solution_question")
	default:
		c.solution()
	}
}

func (c *companion) solution() {
	s := c.step(c.page)
	if s == nil {
		return
	}
	p := c.hints[s.Number]
	p.Solution = true
	c.hints[s.Number] = p
	c.say("tui.solution.title")
	c.markdown(s.Solution)
	c.save(s.Number)
}

func (c *companion) save(n int) {
	if c.opts.OnProgress == nil {
		return
	}
	p := c.hints[n]
	if err := c.opts.OnProgress(n, p.Seen, p.Solution); err != nil {
		c.say("tui.toast.save_failed", "err", err)
	}
}

func (c *companion) observed() {
	s := c.step(c.page)
	if s == nil {
		c.say("plain.not_step")
		return
	}
	c.say("tui.observed.title", "step", s.Number)
	r := c.result(s.Number)
	if r == nil || (len(r.Observed) == 0) {
		c.say("tui.observed.none")
		return
	}
	for _, f := range r.Observed {
		c.line(f.Label + ": " + f.Value)
	}
}

// copy says the page's next command or path on a line of its own (a
// screen reader's user copies it from there) and, inside tmux, puts it
// in a tmux buffer.
func (c *companion) copy() {
	md := c.lab.Intro
	if s := c.step(c.page); s != nil {
		md = s.Body
	}
	targets := tui.CopyTargets(md, c.opts.Root)
	if len(targets) == 0 {
		c.say("plain.nothing_to_copy")
		return
	}
	i := c.copyNext[c.page] % len(targets)
	c.copyNext[c.page] = i + 1
	c.say("plain.copy", "n", i+1, "total", len(targets))
	c.line(targets[i])
	if c.cfg.Tmux {
		cmd := exec.Command("tmux", "load-buffer", "-")
		cmd.Stdin = strings.NewReader(targets[i])
		if cmd.Run() == nil {
			c.say("plain.copied_tmux")
		}
	}
}

// edit opens the failing check's place in the editor: beside in tmux,
// else with the terminal until the editor exits.
func (c *companion) edit() {
	s := c.step(c.page)
	r := c.result(c.page)
	if s == nil || r == nil {
		c.say("plain.no_place")
		return
	}
	var pl checks.Place
	ok := false
	for _, ch := range r.Checks {
		if ch.Status == checks.Passed {
			continue
		}
		if pl, ok = checks.PlaceOf(ch.Where); ok && filepath.IsLocal(filepath.FromSlash(pl.File)) {
			break
		}
		ok = false
	}
	if !ok {
		c.say("plain.no_place")
		return
	}
	path, err := editor.Resolve(c.opts.Root, pl.File)
	if err != nil {
		c.say("tui.toast.edit_outside", "file", pl.File)
		return
	}
	ed, err := editor.Find(c.cfg.Editor)
	if err != nil {
		c.say("tui.toast.edit_none")
		return
	}
	at := editor.Place{Path: path, Line: pl.Line, Col: pl.Col}
	shown := fmt.Sprintf("%s:%d", pl.File, pl.Line)
	if c.cfg.Tmux || ed.Window {
		argv := ed.Command(at)
		if c.cfg.Tmux && !ed.Window {
			argv = append([]string{"tmux"}, ed.Split(at, c.cfg.Pane, c.opts.Root, c.cfg.Width, tui.MinWidth)...)
		}
		run := c.cfg.RunCommand
		if run == nil {
			run = func(argv []string) error { return exec.Command(argv[0], argv[1:]...).Start() }
		}
		if err := run(argv); err != nil {
			c.say("tui.toast.edit_pane_failed", "err", termtext.Clean(err.Error()))
			return
		}
		c.say("tui.toast.edit_pane", "editor", ed.Name, "file", shown)
		return
	}
	c.flush()
	argv := ed.Command(at)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.opts.Root
	cmd.Stdout, cmd.Stderr = c.cfg.Out, c.cfg.Out
	// The editor reads the keys from the command's stdin when it is a
	// file (the terminal), else from /dev/tty, as terminal.Run does.
	if f, ok := c.cfg.In.(*os.File); ok {
		cmd.Stdin = f
	} else if tty, err := os.Open("/dev/tty"); err == nil {
		defer tty.Close()
		cmd.Stdin = tty
	}
	if err := cmd.Run(); err != nil {
		c.say("tui.toast.edit_failed", "editor", ed.Name)
		return
	}
	c.say("tui.toast.edit_done", "editor", ed.Name)
}

func (c *companion) compare() {
	s := c.step(c.page)
	if s == nil || c.report == nil || c.result(s.Number) == nil || c.result(s.Number).Status != checks.Passed {
		c.say("plain.compare_not_yet")
		return
	}
	if len(compare.Files(c.lab, s.Number)) == 0 {
		c.say("plain.compare_none")
		return
	}
	cmp := termtext.Deep(compare.Of(c.lab, s.Number, c.opts.Root))
	c.say("tui.compare.title", "step", s.Number)
	for _, f := range cmp.Files {
		c.line(f.Path)
		switch {
		case f.Unread != "":
			c.say("tui.compare.unread", "why", f.Unread)
			continue
		case f.Missing:
			c.say("tui.compare.missing")
			continue
		case f.Same:
			c.say("tui.compare.same")
			continue
		case f.SameMeaning:
			c.say("tui.compare.same_meaning")
		default:
			c.say("tui.compare.legend")
		}
		for _, h := range f.Hunks {
			c.say("tui.compare.hunk", "ref", h.RefLine, "mine", h.LearnerLine)
			for _, l := range h.Lines {
				mark := " "
				switch l.Kind {
				case compare.Reference:
					mark = "-"
				case compare.Learner:
					mark = "+"
				}
				c.out.WriteString(mark + " " + page.Untab(l.Text) + "\n")
			}
		}
	}
	if cmp.Script {
		c.say("tui.compare.script")
	}
	for _, e := range cmp.Explained {
		c.say("tui.compare.equivalent")
		c.line(e.File + " " + e.Field + ": " + tui.Explain(c.lab, e))
	}
}

func (c *companion) ending() {
	if c.report == nil || !c.report.AllPassed() {
		c.say("plain.ending_not_yet")
		return
	}
	took, caught := tui.LearnerRun(c.opts.Started, c.passedAt, c.caughtUpAt)
	nCaught := tui.CaughtIn(c.lab, caught)
	switch {
	case c.lab.Finish != "":
		c.markdown(c.lab.Finish)
	case nCaught > 0:
		c.say("tui.ending.no_page_caught_up", "title", c.lab.Title, "caught", nCaught)
	default:
		c.say("tui.ending.no_page", "title", c.lab.Title)
	}
	c.say("tui.ending.run_title")
	var ns []int
	for _, s := range c.lab.Steps {
		ns = append(ns, s.Number)
	}
	sort.Ints(ns)
	for _, n := range ns {
		s := c.step(n)
		c.line(fmt.Sprintf("%d. %s: %s", n, s.Title, tui.RunLine(*s, c.hints[n], took, caught)))
	}
	for _, t := range tui.RunTotals(c.lab, took, caught) {
		c.line(t)
	}
}

func (c *companion) replay(a string) {
	r := c.opts.Replay
	if r == nil {
		c.say("plain.no_replay")
		return
	}
	switch a {
	case "pause":
		r.TogglePause()
	case "speed":
		r.CycleSpeed()
	case "next_change":
		r.NextChange()
	}
	c.line(termtext.Clean(r.Status()))
}

// place says, first, where the lab's files go when the learner cannot
// work there yet (the TUI's footer note, labroot's words), with its
// fixes, or the command that makes it.
func (c *companion) place() {
	p := c.opts.Place
	if p.State == "" || p.State == labroot.Ready {
		return
	}
	if c.canMakeRoot() {
		c.line(termtext.Clean(p.Note()))
		c.say("plain.make_root_offer")
		return
	}
	c.line(termtext.Clean(p.Say()))
}

// canMakeRoot reports whether make_root applies: a root still to be
// made, where the learner may make it, not tried yet.
func (c *companion) canMakeRoot() bool {
	p := c.opts.Place
	return p.State == labroot.Missing && p.CanMake && !c.madeRoot
}

// makeRoot makes the lab root (the directory only), once, as the TUI's
// key does.
func (c *companion) makeRoot() {
	if !c.canMakeRoot() {
		c.say("plain.make_root_no")
		return
	}
	c.madeRoot = true
	made, err := c.opts.Place.Make()
	switch {
	case err != nil:
		c.line(termtext.Clean(err.Error()))
	case made:
		c.say("tui.toast.root_made", "root", c.opts.Root)
	default:
		c.say("tui.toast.root_there", "root", c.opts.Root)
	}
}
