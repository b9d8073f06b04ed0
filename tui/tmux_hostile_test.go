package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/internal/termtext/termtexttest"
)

// The tests in this file open text from outside labmate in a real tmux
// that obeys what it is sent: set-clipboard on (an OSC 52 from the
// program fills a paste buffer) and allow-rename on. A hostile lab's
// page, hint, solution and message, a learner's file and a class record
// carry a window title (OSC 2), a clipboard write (OSC 52) and a screen
// clear (termtexttest.Hostile). The pane's title and paste buffers must
// stay as they were, the screen must keep its layout, and the text must
// be on it visibly escaped.

// obeyingTmux are the options under which tmux acts on what it is sent.
var obeyingTmux = [][2]string{{"set-clipboard", "on"}, {"allow-rename", "on"}}

// hostileShownPart is the part of termtexttest.Shown that fits a row
// with a label before it.
var hostileShownPart = prefix(termtexttest.Shown, 30)

// tomlString writes s as a TOML basic string, its control characters
// as \u escapes (TOML allows no raw ones).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || r == '"' || r == '\\':
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeHostileLab writes a lab whose intro, page, hint, solution, title
// and message carry termtexttest.Hostile (raw in markdown, \u-escaped in
// TOML), and a lab root whose report holds it in a value labmate shows
// as observed. It returns the lab's directory and the root.
func writeHostileLab(t *testing.T) (lab, root string) {
	t.Helper()
	dir := t.TempDir()
	lab, root = filepath.Join(dir, "lab"), filepath.Join(dir, "root")
	h := termtexttest.Hostile
	files := map[string]string{
		"lab/intro.md":        "# 소개\n\n소개 " + h + "\n",
		"lab/steps/01.md":     "# 본문\n\n본문 " + h + "\n",
		"lab/solutions/01.md": "풀이 " + h + "\n",
		"root/out/report.txt": "NAME=" + h + "\nREADY=1\n",
		"lab/messages.toml":   "[hostile]\nname = " + tomlString("메시지 "+h) + "\n",
		"root/etc/app.toml":   "[server]\nname = \"x\"\n",
		"lab/lab.toml": `id = "hostile"
title = "적대적 실습"
default_root = "/tmp/hostile"
intro = "intro.md"

[[steps]]
number = 1
id = "name"
title = "이름"
body = "steps/01.md"
solution = "solutions/01.md"
hints = [` + tomlString("힌트 "+h) + `]

[[steps.checks]]
id = "name"
type = "field"
path = "etc/app.toml"
key = "server.name"
equals = "demo"
fail = "hostile.name"

[[steps.checks]]
id = "report"
type = "report"
path = "out/report.txt"
keys = ["NAME", "READY"]
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return lab, root
}

// untouched fails unless the pane's title and tmux's paste buffers hold
// nothing the hostile text tried to put there, and returns the screen
// once it shows each of shown (wherever the pane's width broke its lines).
func (p *pane) untouched(shown ...string) string {
	p.t.Helper()
	s, onScreen := p.waitUntil(func(s string) bool {
		for _, w := range shown {
			if !strings.Contains(squeeze(s), squeeze(w)) {
				return false
			}
		}
		return true
	})
	if title := p.format("#{pane_title}"); strings.Contains(title, "PWNED") {
		p.t.Errorf("the pane title was set by outside text: %q", title)
	}
	if name := p.format("#{window_name}"); strings.Contains(name, "PWNED") {
		p.t.Errorf("the window was renamed by outside text: %q", name)
	}
	if bufs := p.tmux("list-buffers", "-F", "#{buffer_name}: #{buffer_sample}"); strings.Contains(bufs, "PWNED") {
		p.t.Errorf("a paste buffer holds outside text: %q", bufs)
	}
	if !onScreen {
		p.t.Fatalf("screen never showed %q:\n%s", shown, s)
	}
	return s
}

// tmuxObeys proves the harness: in the same server, a program that does
// send the sequences does set the title and fill a paste buffer, so the
// checks of untouched could fail.
func (p *pane) tmuxObeys() {
	p.t.Helper()
	p.tmux("new-window", "-d", "-n", "control", "printf '\\033]2;CONTROL-TITLE\\007\\033]52;c;Q09OVFJPTC1DTElQ\\007'; exec sleep 60")
	_, ok := p.waitUntil(func(string) bool {
		title := strings.TrimSpace(p.tmux("display-message", "-p", "-t", "control", "#{pane_title}"))
		bufs := p.tmux("list-buffers", "-F", "#{buffer_sample}")
		return title == "CONTROL-TITLE" && strings.Contains(bufs, "CONTROL-CLIP")
	})
	if !ok {
		p.t.Fatalf("tmux did not obey a program that sends OSC 2 and OSC 52: title %q, buffers %q",
			p.tmux("display-message", "-p", "-t", "control", "#{pane_title}"), p.tmux("list-buffers"))
	}
}

// TestTmuxHostileLab opens a hostile lab with the real binary
// (--lab-dir, no cluster): the introduction, the step page with the
// lab's message, a hint, the worked solution and the observed view of
// the learner's report. Each shows the text escaped and leaves the pane
// as it was.
func TestTmuxHostileLab(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	lab, root := writeHostileLab(t)
	p := startProgramWith(t, bin, 60, 30, obeyingTmux, xdgEnv(t), "--lab-dir", lab, "--root", root, "--no-cluster")
	p.checkScreen(p.untouched("소개 " + hostileShownPart))
	p.keys("1")
	p.checkScreen(p.untouched("본문 "+hostileShownPart, "메시지 "+prefix(hostileShownPart, 10)))
	p.keys("h")
	p.checkScreen(p.untouched("힌트 " + prefix(hostileShownPart, 20)))
	p.keys("h", "y")
	p.checkScreen(p.untouched("풀이 " + hostileShownPart))
	p.keys("o")
	p.checkScreen(p.untouched("NAME=" + hostileShownPart))
	p.keys("q")
	if rc := p.exited(); rc != 0 {
		t.Errorf("labmate exited %d after q", rc)
	}
	p.tmuxObeys()
}

// TestTmuxHostileBoard shows the instructor's board on a class whose
// record carries the hostile text in the learner's name, then that
// learner's detail (name, learner, failing check).
func TestTmuxHostileBoard(t *testing.T) {
	t.Parallel()
	p := startProgramWith(t, buildDemo(t), 100, 20, obeyingTmux, nil, "-board")
	p.untouched(prefix(termtexttest.Shown, 20))
	p.keys("enter")
	s := p.untouched("check " + prefix(termtexttest.Shown, 40))
	if !strings.Contains(s, termtexttest.Shown) {
		t.Errorf("the learner's name is not shown escaped in the detail:\n%s", s)
	}
	p.keys("q")
	p.exited()
	p.tmuxObeys()
}

// TestTmuxHostileReplay replays a trace recorded on the hostile lab: the
// learner's report comes back from the trace's records, and the observed
// view shows it escaped.
func TestTmuxHostileReplay(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	lab, root := writeHostileLab(t)
	rec := filepath.Join(t.TempDir(), "hostile.jsonl")
	cmd := exec.Command(bin, "check", "--lab-dir", lab, "--root", root, "--no-cluster", "--record", rec)
	cmd.Env = append(os.Environ(), xdgEnv(t)...)
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "메시지") {
		t.Fatalf("check --record: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(rec); err != nil || len(b) == 0 {
		t.Fatalf("no trace recorded: %v", err)
	}
	p := startProgramWith(t, bin, 60, 30, obeyingTmux, xdgEnv(t), "replay", rec, "--lab-dir", lab, "--speed", "instant")
	p.untouched("소개 " + hostileShownPart)
	p.keys("1", "o")
	p.untouched("NAME=" + hostileShownPart)
	p.keys("q")
	p.exited()
	p.tmuxObeys()
}
