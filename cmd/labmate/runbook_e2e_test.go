package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// runbookLine is one command of docs/CLASS.md's runbook: its section
// (the "## N." heading it is under), its words as a shell reads them and
// the file its stdout is redirected to.
type runbookLine struct {
	section string
	args    []string
	stdout  string
	text    string
}

// runbook reads docs/CLASS.md's runbook (the part before "# How the
// class works"): every command line of its sh blocks, parsed with a
// shell parser, and the roster its text block shows.
func runbook(t *testing.T) (lines []runbookLine, roster string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "CLASS.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, _, ok := strings.Cut(string(raw), "\n# How the class works")
	if !ok {
		t.Fatal("docs/CLASS.md has no \"# How the class works\": where does the runbook end?")
	}
	heading := regexp.MustCompile(`(?m)^## (.+)$`)
	block := regexp.MustCompile("(?s)```(sh|text)\n(.*?)```")
	for _, m := range block.FindAllStringSubmatchIndex(doc, -1) {
		section := ""
		if hs := heading.FindAllStringSubmatch(doc[:m[0]], -1); len(hs) > 0 {
			section = hs[len(hs)-1][1]
		}
		body := doc[m[4]:m[5]]
		if doc[m[2]:m[3]] == "text" {
			if roster == "" && strings.HasPrefix(section, "2.") {
				roster = body
			}
			continue
		}
		f, err := syntax.NewParser().Parse(strings.NewReader(body), "CLASS.md")
		if err != nil {
			t.Fatalf("a sh block of %q does not parse: %v\n%s", section, err, body)
		}
		for _, st := range f.Stmts {
			call, ok := st.Cmd.(*syntax.CallExpr)
			if !ok {
				t.Fatalf("%q: not a plain command: %v", section, st)
			}
			l := runbookLine{section: section}
			for _, w := range call.Args {
				lit := w.Lit()
				if lit == "" {
					t.Fatalf("%q: a word that is not a literal in %v", section, st)
				}
				l.args = append(l.args, lit)
			}
			for _, r := range st.Redirs {
				if r.Op == syntax.RdrOut {
					l.stdout = r.Word.Lit()
				}
			}
			l.text = strings.Join(l.args, " ")
			lines = append(lines, l)
		}
	}
	if roster == "" {
		t.Fatal("docs/CLASS.md's section 2 shows no roster")
	}
	return lines, roster
}

// runIn runs labmate in dir with stdin, as a shell in dir would.
func runIn(t *testing.T, dir, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Chdir(dir)
	var out, errOut strings.Builder
	code = runWith(args, cli.Streams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// paneIn runs labmate args (this test binary as labmate) in dir in a
// 60x24 tmux pane, on a fresh environment but for HOME and the XDG
// directories given.
func paneIn(t *testing.T, dir string, env []string, args ...string) tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed to run the runbook's TUI and board lines")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	socket := "labmate-runbook-" + rand.String(6)
	p := tmuxPane{tmux: func(a ...string) ([]byte, error) {
		return exec.Command("tmux", append([]string{"-L", socket}, a...)...).CombinedOutput()
	}}
	t.Cleanup(func() { _, _ = p.tmux("kill-server") })
	words := []string{"cd", dir, "&&", "exec", "env", "-i", "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8", "LABMATE_TEST_AS_LABMATE=1"}
	words = append(words, env...)
	words = append(words, self)
	for i, w := range words {
		if w == "&&" {
			continue
		}
		if q, err := syntax.Quote(w, syntax.LangPOSIX); err == nil {
			words[i] = q
		}
	}
	for _, a := range args {
		q, _ := syntax.Quote(a, syntax.LangPOSIX)
		words = append(words, q)
	}
	if out, err := p.tmux("new-session", "-d", "-x", "60", "-y", "24", strings.Join(words, " ")); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	return p
}

// An instructor with `admin` on one namespace runs docs/CLASS.md's
// runbook, command by command as printed there, on the e2e cluster as
// the class cluster with the roster the runbook shows: init, a rehearsal
// (doctor --class and the learner's line, in a tmux pane), the line read
// out to the room, the board in a 60-column pane, the export, the report
// and the end. Between them: init again with another lab is refused
// unless confirmed, and says what would go; the lines init prints run
// as printed; a typo'd namespace is an error in Korean (exit 1), naming
// the class to an instructor who may see it. The runbook's `sandbox up`
// lines start a learner's own lab cluster, which is not this test's:
// they are skipped, named in the log.
//
//	LABMATE_E2E=1 go test ./cmd/labmate -run TestRunbookE2E -v
func TestRunbookE2E(t *testing.T) {
	admin := sandboxtest.Start(t) // the cluster's own admin
	cs := sandboxtest.Client(t)
	server := sandboxtest.Conn(t).Host()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	lines, roster := runbook(t)

	home := t.TempDir()
	work := filepath.Join(home, "class")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	ns := "runbook-" + rand.String(6)
	sandboxtest.NamespaceAdmin(t, ctx, ns, filepath.Join(work, "class.yaml"))
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache")}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv(catalog.EnvLab, "") // nothing but the class names the lab
	t.Setenv("KUBECONFIG", "")
	if err := os.WriteFile(filepath.Join(work, "roster.txt"), []byte(roster), 0o644); err != nil {
		t.Fatal(err)
	}

	// The runbook's words, but for the namespace (the e2e cluster is
	// shared) and the learners' address (the e2e cluster's own).
	words := func(l runbookLine) []string {
		var out []string
		for i := 1; i < len(l.args); i++ {
			w := l.args[i]
			switch {
			case w == "workshop" && l.args[i-1] == "-n":
				w = ns
			case l.args[i-1] == "--server":
				w = server
			}
			out = append(out, w)
		}
		return out
	}
	run := func(l runbookLine, dir, stdin string, want int) (string, string) {
		t.Helper()
		code, out, errOut := runIn(t, dir, stdin, words(l)...)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", l.text, code, want, out, errOut)
		}
		if l.stdout != "" {
			if err := os.WriteFile(filepath.Join(dir, l.stdout), []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return out, errOut
	}
	kubeconfigs := filepath.Join(work, "kubeconfigs")
	ran := map[string]bool{}
	var initLine runbookLine
	var printed map[string]string

	for _, l := range lines {
		if len(l.args) < 2 || l.args[0] != "labmate" {
			t.Fatalf("%q: a runbook line that is no labmate command: %s", l.section, l.text)
		}
		cmd := strings.Join(l.args[1:min(3, len(l.args))], " ")
		switch {
		case cmd == "class init":
			initLine = l
			out, errOut := run(l, work, "", cli.ExitOK)
			if !strings.Contains(errOut, server) || !hangul(errOut) {
				t.Errorf("init with a loopback --server: no warning naming it:\n%s", errOut)
			}
			for _, f := range []string{"learner-01", "learner-02", "learner-07"} {
				if _, err := os.Stat(filepath.Join(kubeconfigs, f+".kubeconfig")); err != nil {
					t.Errorf("init wrote no kubeconfig for %s (the roster's): %v\n%s", f, err, out)
				}
			}
			printed = nextLines(t, out)

			// The same line again changes nothing and asks nothing.
			if out, _ := run(l, work, "", cli.ExitOK); strings.Contains(out, "[y/N]") {
				t.Errorf("init run again asked:\n%s", out)
			}
			// Another lab: asked first, refused by a no, never silent.
			other := l
			other.args = append([]string(nil), l.args...)
			for i := range other.args {
				if other.args[i] == "gpu-incident" {
					other.args[i] = "driver-reboot"
				}
			}
			other.text = strings.Join(other.args, " ")
			out, errOut = run(other, work, "n\n", cli.ExitFail)
			if !strings.Contains(out, "[y/N]") || !strings.Contains(out, "driver-reboot") || !hangul(errOut) {
				t.Errorf("init with another lab, answered no: does not say what would change\nstdout:\n%s\nstderr:\n%s", out, errOut)
			}
			// No one to answer: the flag that answers is named.
			if _, errOut := run(other, work, "", cli.ExitFail); !strings.Contains(errOut, "--yes") {
				t.Errorf("init with another lab, no answer: --yes is not named:\n%s", errOut)
			}
			if lab := classLab(t, ctx, cs, ns); lab != "gpu-incident" {
				t.Errorf("after a refused change of lab the class's lab is %q", lab)
			}
		case cmd == "doctor --class":
			// The class line is ok; the rest is this laptop's own (no lab
			// cluster yet here: a problem doctor names, exit 1).
			code, out, errOut := runIn(t, work, "", words(l)...)
			if code == cli.ExitUsage || !classOK.MatchString(out) {
				t.Errorf("%s: exit %d, the class not ok for learner-01:\n%s%s", l.text, code, out, errOut)
			}
			// It looks at the class's lab, the one the learner's labmate
			// opens, not at every lab installed.
			if !strings.Contains(out, "gpu-incident@") || strings.Contains(out, "driver-reboot") || strings.Contains(out, "gpu-quota") {
				t.Errorf("%s looks at other labs than the class's:\n%s", l.text, out)
			}
		case strings.HasPrefix(l.args[1], "--class"):
			// The learner's TUI: in a pane, in the folder the file is in
			// for the line read out to the room.
			dir := work
			if !strings.Contains(l.args[2], "/") {
				dir = kubeconfigs
			}
			p := paneIn(t, dir, env, words(l)...)
			p.waitFor(t, "교실:연결됨")
			p.quit(t)
		case cmd == "sandbox up":
			t.Logf("skipped (a learner's own lab cluster): %s", l.text)
			continue
		case cmd == "class board":
			p := paneIn(t, work, env, words(l)...)
			p.waitFor(t, "박하은") // learner-07 joined from the folder of their file
			p.waitFor(t, "이서준") // learner-02 did not: listed, last
			p.quit(t)
			// The line init printed runs as printed.
			if line := printed["board"]; line != "" {
				args := strings.Fields(line)[1:]
				p := paneIn(t, work, env, args...)
				p.waitFor(t, "김지민")
				p.quit(t)
			}
			// A typo'd namespace: said in Korean, exit 1, before any board.
			typo := l
			typo.args = append([]string(nil), l.args...)
			typo.args[1], typo.args[2] = "class", "export"
			code, out, errOut := runIn(t, work, "", append(words(typo)[:len(words(typo))-1], ns+"x")...)
			if code != cli.ExitFail || out != "" || !hangul(errOut) || !strings.Contains(errOut, ns+"x") {
				t.Errorf("a typo'd namespace as the namespace's admin: exit %d\nstdout %q\nstderr %q", code, out, errOut)
			}
			code, _, errOut = runIn(t, work, "", "class", "export", "--kubeconfig", admin, "-n", ns+"x")
			if code != cli.ExitFail || !strings.Contains(errOut, ns) || !hangul(errOut) {
				t.Errorf("a typo'd namespace as the cluster's admin does not name the class: exit %d\n%s", code, errOut)
			}
		case cmd == "class export":
			run(l, work, "", cli.ExitOK)
			got, err := os.ReadFile(filepath.Join(work, l.stdout))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(l.stdout, ".csv") && (!bytes.HasPrefix(got, []byte("\ufeff")) || !strings.Contains(string(got), "김지민")) {
				t.Errorf("%s: no byte order mark or no 김지민:\n%s", l.text, got)
			}
		case cmd == "class report":
			out, _ := run(l, work, "", cli.ExitOK)
			if !strings.Contains(out, filepath.Join(work, "report.html")) {
				t.Errorf("report does not print where it wrote: %q", out)
			}
		case cmd == "class end":
			out, _ := run(l, work, "y\n", cli.ExitOK)
			if !strings.Contains(out, "[y/N]") {
				t.Errorf("end did not ask:\n%s", out)
			}
			// Gone: the learner's token, and the class itself.
			_, dout, derr := runIn(t, work, "", "doctor", "--class", filepath.Join(kubeconfigs, "learner-01.kubeconfig"))
			if classOK.MatchString(dout) || !strings.Contains(dout, "교실 연결 (--class)") {
				t.Errorf("doctor --class after the end still finds the class ok:\n%s%s", dout, derr)
			}
			if code, _, errOut := runIn(t, work, "", words(l)...); code != cli.ExitFail || !hangul(errOut) {
				t.Errorf("class end of an ended class: exit %d\n%s", code, errOut)
			}
		default:
			t.Fatalf("%q: a runbook line this test does not know how to run: %s", l.section, l.text)
		}
		ran[cmd] = true
		t.Logf("ran (%s): %s", l.section, l.text)
	}
	for _, cmd := range []string{"class init", "doctor --class", "class board", "class export", "class report", "class end"} {
		if !ran[cmd] {
			t.Errorf("the runbook never runs %s", cmd)
		}
	}
	if initLine.text == "" || !strings.Contains(initLine.text, "-n workshop") {
		t.Errorf("the runbook's init line: %q", initLine.text)
	}
}

// classOK is doctor --class's line when learner-01 reaches their record.
var classOK = regexp.MustCompile(`\[정상\] 교실 연결 \(--class\).*learner-01`)

// nextLines are the commands init prints for the next steps, by what
// they are for.
func nextLines(t *testing.T, out string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		_, cmd, ok := strings.Cut(line, ": labmate ")
		if !ok {
			continue
		}
		cmd = "labmate " + cmd
		switch {
		case strings.Contains(cmd, "class board"):
			got["board"] = cmd
		case strings.Contains(cmd, "doctor"):
			got["doctor"] = cmd
		default:
			got["learner"] = cmd
		}
	}
	if len(got) != 3 {
		t.Errorf("init printed %d next commands, want 3:\n%s", len(got), out)
	}
	return got
}

// classLab is the lab the class object of ns names.
func classLab(t *testing.T, ctx context.Context, cs kube.Interface, ns string) string {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, class.LabObject, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Annotations[class.AnnotationLabID]
}
