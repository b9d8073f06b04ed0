package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labstore"
	"github.com/labhub/labmate/sandbox/sandboxtest"
	"github.com/labhub/labmate/tui/board"
)

// classLearner is one learner's machine: their class kubeconfig, their
// own data (installed labs) and state directories, their lab root.
type classLearner struct {
	id, file, data, state, root string
}

// check runs `labmate check --class FILE --root ROOT --json` as this
// learner: no lab named, so the class's lab opens.
func (l classLearner) check(t *testing.T) (int, engine.Report, string) {
	t.Helper()
	l.use(t)
	code, out, errOut := runStreams("check", "--class", l.file, "--root", l.root, "--json")
	var rep engine.Report
	if code != cli.ExitUsage {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: check --json: %v\n%s\n%s", l.id, err, out, errOut)
		}
	}
	return code, rep, errOut
}

func (l classLearner) use(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", l.data)
	t.Setenv("XDG_STATE_HOME", l.state)
}

// installed are the labs in this learner's store.
func (l classLearner) installed(t *testing.T) []labstore.Installed {
	t.Helper()
	l.use(t)
	all, err := labstore.List()
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// The class carries its own lab: `class init --lab DIR` for a file-only
// lab written here; two learners with their generated kubeconfigs get it
// with --class and no lab named, pass step 1, and the export and the
// board show them on 1.0.0; `class lab push` of a changed copy reaches a
// running learner's watch (installed at once) and both learners' next
// start; a tampered object is refused with a Korean message and the
// learner keeps their verified copy.
func TestClassCarriesItsLabE2E(t *testing.T) {
	e := newClassLabE2E(t)
	e.firstStart(t)
	e.pushReachesBoth(t)
	e.tamperedIsRefused(t)
}

// classLabE2E is a class on the e2e sandbox carrying the file-only lab at
// 1.0.0 (v1, its archive), and its two learners.
type classLabE2E struct {
	kubeconfig, ns string
	cs             kube.Interface
	ctx            context.Context
	v1             []byte
	learners       []classLearner
}

// newClassLabE2E runs `class init --lab DIR` and lays out two learners'
// machines, each with step 1 of the lab done in their root.
func newClassLabE2E(t *testing.T) *classLabE2E {
	e := &classLabE2E{kubeconfig: sandboxtest.Start(t), cs: sandboxtest.Client(t), ns: "class-lab-" + rand.String(6)}
	t.Cleanup(func() { _ = e.cs.CoreV1().Namespaces().Delete(context.Background(), e.ns, metav1.DeleteOptions{}) })
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	e.ctx = ctx
	v1Dir := testfiles.Dir(t, labkittest.VersionedFileLab("1.0.0", ""))
	var err error
	if e.v1, err = labstore.Pack(v1Dir); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "class")
	code, stdout, errOut := runStreams("class", "init", "--kubeconfig", e.kubeconfig, "-n", e.ns, "--learners", "2", "--out", out, "--lab", v1Dir)
	if code != cli.ExitOK || !strings.Contains(stdout, labstore.Sum(e.v1)) || !strings.Contains(stdout, "nginx-conf 1.0.0") {
		t.Fatalf("class init --lab DIR: exit %d, want the lab's sha256 %s said\n%s%s", code, labstore.Sum(e.v1), stdout, errOut)
	}
	for _, id := range []string{"learner-01", "learner-02"} {
		l := classLearner{id: id, file: filepath.Join(out, id+".kubeconfig"), data: t.TempDir(), state: t.TempDir(), root: t.TempDir()}
		if err := os.MkdirAll(filepath.Join(l.root, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		clitest.Save(t, filepath.Join(l.root, "bin", "reload.sh"), "#!/bin/sh\nnginx -s reload\n")
		if err := os.Chmod(filepath.Join(l.root, "bin", "reload.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		e.learners = append(e.learners, l)
	}
	learnerMayReadOnlyTheLabObject(ctx, t, e.learners[0].file)
	return e
}

// firstStart: each learner's `check --class` fetches, checks, installs
// and runs the class's lab; the export shows both on 1.0.0.
func (e *classLabE2E) firstStart(t *testing.T) {
	for _, l := range e.learners {
		start := time.Now()
		code, rep, errOut := l.check(t)
		t.Logf("%s: first check --class (fetch, verify, install, evaluate, publish): %v", l.id, time.Since(start).Round(time.Millisecond))
		if code != cli.ExitFail || rep.Step(1) == nil || rep.Step(1).Status != checks.Passed || len(rep.Steps) != 2 {
			t.Fatalf("%s: check --class: exit %d, want the class's lab with step 1 passed: %+v\n%s", l.id, code, rep.Steps, errOut)
		}
		if in := l.installed(t); len(in) != 1 || in[0].ID != "nginx-conf" || in[0].Version != "1.0.0" || in[0].Sum != labstore.Sum(e.v1) ||
			!strings.HasPrefix(in[0].Source, "class "+e.ns+" ") {
			t.Fatalf("%s: installed %+v", l.id, in)
		}
	}
	exportShows(t, e.kubeconfig, e.ns, "1.0.0", 2)
	start := time.Now()
	if code, _, errOut := e.learners[0].check(t); code != cli.ExitFail {
		t.Fatalf("second start: exit %d\n%s", code, errOut)
	}
	t.Logf("learner-01: second check --class (the installed copy reused): %v", time.Since(start).Round(time.Millisecond))
}

// pushReachesBoth: a new version while learner-01's labmate runs (the
// watch cmd wires) and learner-02's TUI runs in a 60-column tmux pane:
// the watch installs it and says so, the TUI's step strip says so; the
// board marks both learners as behind until they start again; the next
// start moves to 1.1.0, its progress carried from 1.0.0 for the steps
// whose IDs remain (state per lab version).
func (e *classLabE2E) pushReachesBoth(t *testing.T) {
	ls := e.learners
	pane := ls[1].tuiInTmux(t)
	ls[0].use(t)
	l1, err := openLearner(ls[0].file)
	if err != nil {
		t.Fatal(err)
	}
	have, ok := classlab.InstalledFrom(classlab.Source(l1.Conn, l1.Namespace), labstore.Sum(e.v1))
	if !ok {
		t.Fatal("learner-01's copy of the class's lab is not found by its source")
	}
	wctx, stopWatch := context.WithCancel(e.ctx)
	defer stopWatch()
	notes := classlab.WatchInstalled(wctx, l1.Conn, l1.Namespace, have)
	v2Dir := testfiles.Dir(t, labkittest.VersionedFileLab("1.1.0", "재시작 스크립트 (고친 판)"))
	if code, stdout, errOut := runStreams("class", "lab", "push", v2Dir, "--kubeconfig", e.kubeconfig, "-n", e.ns); code != cli.ExitOK {
		t.Fatalf("class lab push: exit %d\n%s%s", code, stdout, errOut)
	}
	if n := nextNote(t, notes); n.Refused || n.Version != "1.1.0" {
		t.Fatalf("learner-01's watch: %+v, want 1.1.0", n)
	}
	stopWatch()
	pane.waitFor(t, "새 실습 1.1.0: 재시작")
	pane.quit(t)
	if in := ls[0].installed(t); len(in) != 2 || in[1].Version != "1.1.0" {
		t.Fatalf("learner-01's store after the watch: %+v, want 1.1.0 installed", in)
	}
	boardMarksBehind(e.ctx, t, e.kubeconfig, e.ns, 2)
	for _, l := range ls {
		code, rep, errOut := l.check(t)
		if code != cli.ExitFail || rep.Step(1).Status != checks.Passed {
			t.Fatalf("%s after the push: exit %d %+v\n%s", l.id, code, rep.Steps, errOut)
		}
		if probs := strings.Join(rep.Problems, "\n"); !strings.Contains(probs, "버전 1.0.0 에서 1.1.0") || !strings.Contains(probs, "통과한 단계 1개") {
			t.Errorf("%s's first start on 1.1.0 does not say its progress came along: %q", l.id, rep.Problems)
		}
	}
	exportShows(t, e.kubeconfig, e.ns, "1.1.0", 2)
	boardMarksBehind(e.ctx, t, e.kubeconfig, e.ns, 0)
}

// tamperedIsRefused: the archive's bytes changed, its digest not. A
// running learner's watch refuses it in Korean, their next start opens
// the verified copy they have, and a learner with none cannot open it.
func (e *classLabE2E) tamperedIsRefused(t *testing.T) {
	l := e.learners[1]
	l.use(t)
	l2, err := openLearner(l.file)
	if err != nil {
		t.Fatal(err)
	}
	have, _ := classlab.InstalledFrom(classlab.Source(l2.Conn, l2.Namespace), "")
	wctx, stopWatch := context.WithCancel(e.ctx)
	defer stopWatch()
	notes := classlab.WatchInstalled(wctx, l2.Conn, l2.Namespace, have)
	obj, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(e.ctx, class.LabObject, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obj.BinaryData[class.LabArchiveKey] = e.v1 // a real lab, just not the one the digest names
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Update(e.ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := nextNote(t, notes); !n.Refused || !strings.Contains(n.Why, "sha256") || !hangul(n.Why) {
		t.Fatalf("learner-02's watch of a tampered lab: %+v, want refused in Korean", n)
	}
	code, rep, errOut := l.check(t)
	if code != cli.ExitFail || !strings.Contains(strings.Join(rep.Problems, "\n"), "전에 받아 둔 실습 nginx-conf 1.1.0") {
		t.Fatalf("learner-02 with a tampered class lab: exit %d, problems %q\n%s", code, rep.Problems, errOut)
	}
	if in := l.installed(t); in[len(in)-1].Version != "1.1.0" || len(in) != 2 {
		t.Fatalf("learner-02's store after the tampered lab: %+v", in)
	}
	exportShows(t, e.kubeconfig, e.ns, "1.1.0", 2)
	fresh := e.learners[0]
	fresh.data = t.TempDir()
	if code, _, errOut := fresh.check(t); code != cli.ExitUsage || !strings.Contains(errOut, "sha256") || !strings.Contains(errOut, "받아 둔 교실 실습도 없어") {
		t.Fatalf("a fresh learner with a tampered class lab: exit %d\n%s", code, errOut)
	}
}

// learnerMayReadOnlyTheLabObject: a learner's Role lets them get the lab
// object and list and watch it by name (a metadata.name field selector),
// and nothing more of the namespace.
func learnerMayReadOnlyTheLabObject(ctx context.Context, t *testing.T, file string) {
	t.Helper()
	l, err := openLearner(file)
	if err != nil {
		t.Fatal(err)
	}
	lcs, err := l.Conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	cms := lcs.CoreV1().ConfigMaps(l.Namespace)
	if _, err := cms.Get(ctx, class.LabObject, metav1.GetOptions{}); err != nil {
		t.Fatalf("a learner getting the lab object: %v", err)
	}
	byName := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", class.LabObject).String()}
	if got, err := cms.List(ctx, byName); err != nil || len(got.Items) != 1 {
		t.Fatalf("a learner listing the lab object by name: %v", err)
	}
	w, err := cms.Watch(ctx, byName)
	if err != nil {
		t.Fatalf("a learner watching the lab object by name: %v", err)
	}
	w.Stop()
	if _, err := cms.List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("a learner listing the class: %v, want 403", err)
	}
	if _, err := cms.Watch(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("a learner watching the class: %v, want 403", err)
	}
	if _, err := cms.Patch(ctx, class.LabObject, "application/merge-patch+json", []byte(`{"metadata":{"annotations":{"x":"y"}}}`), metav1.PatchOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("a learner patching the lab object: %v, want 403", err)
	}
}

// exportShows: `class export` lists n learners on the class's lab at
// version, step 1 passed.
func exportShows(t *testing.T, kubeconfig, ns, version string, n int) {
	t.Helper()
	code, stdout, errOut := runStreams("class", "export", "--kubeconfig", kubeconfig, "-n", ns, "--lab", "nginx-conf")
	var exp class.Export
	if err := json.Unmarshal([]byte(stdout), &exp); err != nil || code != cli.ExitOK || len(exp.Learners) != n {
		t.Fatalf("class export: exit %d, %v\n%s%s", code, err, stdout, errOut)
	}
	for _, l := range exp.Learners {
		if l.Flag != "" || l.LabVersion != version || len(l.Steps) == 0 || l.Steps[0].Status != checks.Passed {
			t.Errorf("%s in the export: %+v, want %s with step 1 passed", l.Learner, l, version)
		}
	}
}

// boardMarksBehind: the board, fed the class as its watch delivers it,
// marks n learners 구판.
func boardMarksBehind(ctx context.Context, t *testing.T, kubeconfig, ns string, n int) {
	t.Helper()
	conn, err := kube.Open(admin.Kubeconfig(kubeconfig, ""))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := conn.Within(30 * time.Second).Typed()
	if err != nil {
		t.Fatal(err)
	}
	c, err := admin.List(ctx, cs, ns, "")
	if err != nil {
		t.Fatal(err)
	}
	var m tea.Model = board.New(board.Options{Namespace: ns})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	m, _ = m.Update(board.ClassMsg(c))
	view := ansi.Strip(m.View())
	if got := strings.Count(view, "구판"); got != n || !strings.Contains(view, "nginx-conf 1.1.0") {
		t.Fatalf("the board marks %d learners 구판, want %d:\n%s", got, n, view)
	}
}

func nextNote(t *testing.T, ch <-chan classlab.LabNote) classlab.LabNote {
	t.Helper()
	select {
	case n := <-ch:
		return n
	case <-time.After(60 * time.Second):
		t.Fatal("no note from the class lab's watch within 60 s")
	}
	return classlab.LabNote{}
}

func hangul(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 })
}

// tmuxPane is a labmate TUI running in a tmux pane of its own server.
type tmuxPane struct {
	tmux func(args ...string) ([]byte, error)
}

// tuiInTmux starts this learner's TUI (this test binary as labmate) with
// --class and --root only, in a 60x20 pane, and waits until it shows the
// class's lab.
func (l classLearner) tuiInTmux(t *testing.T) tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for the TUI's whole-program test")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	socket := "labmate-classlab-" + rand.String(6)
	p := tmuxPane{tmux: func(args ...string) ([]byte, error) {
		return exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
	}}
	t.Cleanup(func() { _, _ = p.tmux("kill-server") })
	cmdline := fmt.Sprintf("env -i HOME=%q PATH=%q XDG_DATA_HOME=%q XDG_STATE_HOME=%q TERM=xterm-256color LANG=C.UTF-8 LABMATE_TEST_AS_LABMATE=1 %q --class %q --root %q",
		os.Getenv("HOME"), os.Getenv("PATH"), l.data, l.state, self, l.file, l.root)
	if out, err := p.tmux("new-session", "-d", "-x", "60", "-y", "20", cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	p.waitFor(t, "nginx")
	return p
}

// waitFor waits up to 60 s for text in the pane; every line of the pane
// fits its 60 columns.
func (p tmuxPane) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _ := p.tmux("capture-pane", "-p")
		if strings.Contains(string(out), text) {
			for _, line := range strings.Split(string(out), "\n") {
				if w := ansi.StringWidth(line); w > 60 {
					t.Errorf("a pane line of %d cells: %q", w, line)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the TUI's pane never showed %q:\n%s", text, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// quit presses q and waits for the TUI to end.
func (p tmuxPane) quit(t *testing.T) {
	t.Helper()
	if out, err := p.tmux("send-keys", "q"); err != nil {
		t.Fatalf("tmux send-keys: %v %s", err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := p.tmux("has-session"); err != nil {
			return
		}
		if time.Now().After(deadline) {
			pane, _ := p.tmux("capture-pane", "-p")
			t.Fatalf("the TUI did not quit on q:\n%s", pane)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// openLearner opens a learner's class kubeconfig as the command line's
// factory does.
func openLearner(path string) (*learner.Learner, error) {
	conn, err := kube.Open(learner.Kubeconfig(path))
	if err != nil {
		return nil, err
	}
	return learner.New(conn, path)
}
