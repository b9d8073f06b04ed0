package doctor

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labroot"
)

var labNodes = []string{"lab-node-0", "lab-node-1", "lab-node-2"}

// env builds a Getenv from pairs; everything else is unset.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// goodTerm is a terminal environment with nothing to complain about.
var goodTerm = env("TERM", "xterm-256color", "LANG", "C.UTF-8")

func opts(t *testing.T) Options {
	t.Helper()
	root := t.TempDir()
	inotify := t.TempDir()
	os.WriteFile(filepath.Join(inotify, "max_user_watches"), []byte("65536\n"), 0o600)
	os.WriteFile(filepath.Join(inotify, "max_user_instances"), []byte("128\n"), 0o600)
	return Options{
		Labs:   []Lab{{ID: "gpu-incident", Root: labroot.Root{Path: root, From: labroot.FromFlag}, Nodes: labNodes, StatePath: filepath.Join(t.TempDir(), "state.json")}},
		Getenv: goodTerm, TTY: true, InotifyDir: inotify,
		// What the tests look at must be done by the deadline: the
		// shipped 4.5 s is a wish for a learner's machine, a loaded one
		// gets 30 s. What hangs is ended by the probes' own timeouts,
		// well before it; the test of the deadline sets its own.
		Deadline: 30 * time.Second,
	}
}

// connect hands o the connection the kubeconfig at path ("": kubectl's
// rules) and context name, or why there is none, as labmate's commands do.
func connect(o *Options, path, context string) {
	o.Cluster.Conn, o.Cluster.Err = kube.Open(kube.Options{Path: path, Context: context})
}

func byID(t *testing.T, r Result, id string) Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no finding %q in %+v", id, r.Findings)
	return Finding{}
}

func expect(t *testing.T, r Result, want map[string]Verdict) {
	t.Helper()
	for id, v := range want {
		if f := byID(t, r, id); f.Verdict != v {
			t.Errorf("%s: verdict %s, want %s (%s)", id, f.Verdict, v, f.Detail)
		}
	}
}

func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: %s
    insecure-skip-tls-verify: true
contexts:
- name: lab
  context: {cluster: lab, user: learner}
current-context: lab
users:
- name: learner
  user: {token: t0ken}
`, server)
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// unfinished is what a finding the run's deadline cut says.
const unfinished = "끝나지 않았습니다"

// within runs doctor and fails the test when a probe was cut by the
// deadline: what hangs must be ended by the probe's own timeout, well
// inside the deadline the tests give doctor (30 s), and a probe that
// waited for the hang instead is reported unfinished. Decided by the
// verdicts, not by how fast a loaded machine ran the probes.
func within(t *testing.T, o Options) Result {
	t.Helper()
	r := Run(context.Background(), o)
	for _, f := range r.Findings {
		if f.Verdict == Fail && strings.Contains(f.Detail, unfinished) {
			t.Fatalf("%s did not finish by the deadline: %s", f.ID, f.Detail)
		}
	}
	return r
}

func TestNoKubeconfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "nothing-here"))
	o := opts(t)
	connect(&o, "", "")
	r := within(t, o)
	expect(t, r, map[string]Verdict{"kubeconfig": Fail, "apiserver": Skip, "nodes": Skip, "root": OK, "watcher": OK, "polling": OK})
	if f := byID(t, r, "kubeconfig"); !strings.Contains(f.Fix, "labmate sandbox up") {
		t.Errorf("no fix for a missing kubeconfig: %q", f.Fix)
	}
	if r.OK() {
		t.Error("a missing kubeconfig must fail the run")
	}
}

func TestNoClusterFlagSkipsCluster(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "nothing-here"))
	o := opts(t)
	o.Cluster.Off = true
	r := within(t, o)
	expect(t, r, map[string]Verdict{"kubeconfig": Skip, "apiserver": Skip, "nodes": Skip})
	if !r.OK() {
		t.Errorf("with --no-cluster and a good environment doctor should pass: %+v", r.Findings)
	}
}

func TestClosedPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	o := opts(t)
	connect(&o, writeKubeconfig(t, "https://"+addr), "")
	r := within(t, o)
	expect(t, r, map[string]Verdict{"kubeconfig": OK, "apiserver": Fail, "nodes": Skip})
	api := byID(t, r, "apiserver")
	if !strings.Contains(api.Detail, "거부") || !strings.Contains(api.Detail, addr) {
		t.Errorf("closed port not explained as refused: %q", api.Detail)
	}
	if !strings.Contains(api.Fix, "labmate sandbox") {
		t.Errorf("no fix: %q", api.Fix)
	}
}

// An address that accepts TCP and then never answers is what a
// blackholing firewall looks like from the client's side (the TLS
// handshake waits forever). Doctor still ends: the API probe gives up
// after its own timeout (versionTimeout) and says the server did not
// answer.
func TestBlackhole(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	o := opts(t)
	connect(&o, writeKubeconfig(t, "https://"+l.Addr().String()), "")
	r := within(t, o)
	expect(t, r, map[string]Verdict{"kubeconfig": OK, "apiserver": Fail, "nodes": Skip})
	if api := byID(t, r, "apiserver"); !strings.Contains(api.Detail, "답하지 않았습니다") {
		t.Errorf("blackhole not explained as a timeout: %q", api.Detail)
	}
}

// fakeAPIServer answers /version and GET node by name for the given nodes.
func fakeAPIServer(t *testing.T, nodes map[string]bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/version":
			fmt.Fprint(w, `{"major":"1","minor":"34","gitVersion":"v1.34.12"}`)
		case strings.HasPrefix(r.URL.Path, "/api/v1/nodes/"):
			name := strings.TrimPrefix(r.URL.Path, "/api/v1/nodes/")
			ready, ok := nodes[name]
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"nodes %q not found","details":{"name":%q,"kind":"nodes"}}`, name, name)
				return
			}
			st := corev1.ConditionFalse
			if ready {
				st = corev1.ConditionTrue
			}
			n := corev1.Node{TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: name},
				Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}}}}
			json.NewEncoder(w).Encode(n)
		default:
			http.NotFound(w, r)
		}
	}))
	srv.TLS = &tls.Config{}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestReachableAPIServerNodes(t *testing.T) {
	cases := []struct {
		name  string
		nodes map[string]bool
		want  Verdict
		says  string
	}{
		{"all three", map[string]bool{"lab-node-0": true, "lab-node-1": true, "lab-node-2": true}, OK, "Ready"},
		{"one missing", map[string]bool{"lab-node-0": true, "lab-node-1": true}, Fail, "lab-node-2"},
		{"one not ready", map[string]bool{"lab-node-0": true, "lab-node-1": false, "lab-node-2": true}, Warn, "lab-node-1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakeAPIServer(t, c.nodes)
			o := opts(t)
			connect(&o, writeKubeconfig(t, srv.URL), "")
			r := within(t, o)
			expect(t, r, map[string]Verdict{"kubeconfig": OK, "apiserver": OK, "nodes": c.want})
			if api := byID(t, r, "apiserver"); !strings.Contains(api.Detail, "v1.34.12") {
				t.Errorf("version not shown: %q", api.Detail)
			}
			if n := byID(t, r, "nodes"); !strings.Contains(n.Detail, c.says) {
				t.Errorf("nodes detail %q does not name %q", n.Detail, c.says)
			}
			if r.OK() != (c.want != Fail) {
				t.Errorf("OK() = %v", r.OK())
			}
		})
	}
}

func TestUnknownContext(t *testing.T) {
	o := opts(t)
	connect(&o, writeKubeconfig(t, "https://127.0.0.1:1"), "nope")
	r := within(t, o)
	kc := byID(t, r, "kubeconfig")
	if kc.Verdict != Fail || !strings.Contains(kc.Detail, "nope") || !strings.Contains(kc.Detail, "lab") {
		t.Errorf("unknown context: %+v", kc)
	}
}

// The root's finding is labroot's words: where the files go and where
// that was chosen; a root still to be made is a warning with its mkdir,
// one the learner cannot use a failure with a way round it. (A root the
// learner has no permission for is tested as a learner who is not root:
// cmd/labmate's TestANonRootLearner.)
func TestRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	home := labroot.Home{Dir: dir}
	for _, c := range []struct {
		root   string
		want   Verdict
		detail []string
		fix    string
	}{
		{dir, OK, []string{"실습 파일은 ~ 아래에", "읽고 쓸 수 있음", "--root 로 정한 곳"}, ""},
		{filepath.Join(dir, "missing"), Warn, []string{"아직 없는 디렉터리", "--root 로 정한 곳"}, "mkdir -p ~/missing"},
		{file, Fail, []string{"디렉터리가 아닌 파일"}, "labmate --root"},
	} {
		f := rootProbe(Lab{Root: labroot.Root{Path: c.root, From: labroot.FromFlag, Home: home}})
		if f.Verdict != c.want {
			t.Errorf("%s: %s, want %s (%s)", c.root, f.Verdict, c.want, f.Detail)
		}
		for _, w := range c.detail {
			if !strings.Contains(f.Detail, w) {
				t.Errorf("%s: detail %q lacks %q", c.root, f.Detail, w)
			}
		}
		if !strings.Contains(f.Fix, c.fix) || c.fix == "" && f.Fix != "" {
			t.Errorf("%s: fix %q, want %q", c.root, f.Fix, c.fix)
		}
		if strings.Contains(f.Fix, "chmod") && c.root != dir {
			t.Errorf("%s: fix %q", c.root, f.Fix)
		}
	}
	// The watcher still works on a missing root: it watches the parent.
	ws := watcherProbe(context.Background(), labroot.Root{Path: filepath.Join(dir, "missing", "deeper")}, Options{InotifyDir: dir})
	if ws[0].Verdict != OK || !strings.Contains(ws[0].Detail, dir) {
		t.Errorf("watcher on a missing root: %+v", ws[0])
	}
}

func TestInotifyLimits(t *testing.T) {
	dir := t.TempDir()
	if f := inotifyLimits(dir); f.Verdict != Skip {
		t.Errorf("no limit files: %s", f.Verdict)
	}
	os.WriteFile(filepath.Join(dir, "max_user_watches"), []byte("1024\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "max_user_instances"), []byte("128\n"), 0o600)
	f := inotifyLimits(dir)
	if f.Verdict != Warn || !strings.Contains(f.Fix, "max_user_watches=") || strings.Contains(f.Fix, "max_user_instances=") {
		t.Errorf("low watches: %+v", f)
	}
	if !strings.Contains(f.Detail, "1024") {
		t.Errorf("values not shown: %q", f.Detail)
	}
	os.WriteFile(filepath.Join(dir, "max_user_watches"), []byte("524288\n"), 0o600)
	if f := inotifyLimits(dir); f.Verdict != OK {
		t.Errorf("good limits: %+v", f)
	}
}

func TestTerminal(t *testing.T) {
	cases := []struct {
		env          func(string) string
		term, locale Verdict
	}{
		{env("TERM", "xterm-256color", "LANG", "ko_KR.UTF-8"), OK, OK},
		{env("TERM", "xterm-kitty", "LC_ALL", "C.utf8", "LANG", "C"), OK, OK},
		{env("TERM", "xterm", "LANG", "C.UTF-8"), Warn, OK},
		{env("TERM", "screen", "TMUX", "/tmp/x,1,0", "LANG", "C.UTF-8"), Warn, OK},
		{env("TERM", "dumb", "LANG", "C.UTF-8"), Fail, OK},
		{env("LANG", "C.UTF-8"), Fail, OK},
		{env("TERM", "xterm", "NO_COLOR", "1", "LC_ALL", "C", "LANG", "C.UTF-8"), OK, Warn},
		{env("TERM", "xterm-256color"), OK, Warn},
	}
	for i, c := range cases {
		fs := terminalProbe(Options{Getenv: c.env, TTY: true})
		if fs[0].Verdict != c.term || fs[1].Verdict != c.locale {
			t.Errorf("case %d: terminal %s (%s), locale %s (%s); want %s, %s", i,
				fs[0].Verdict, fs[0].Detail, fs[1].Verdict, fs[1].Detail, c.term, c.locale)
		}
		if fs[0].Verdict == Warn && c.env("TMUX") != "" && !strings.Contains(fs[0].Fix, "default-terminal") {
			t.Errorf("case %d: inside tmux the fix is tmux's default-terminal, got %q", i, fs[0].Fix)
		}
	}
}

// tmuxServer starts a private tmux server and returns the TMUX value a
// client inside it would see.
func tmuxServer(t *testing.T) (tmuxEnv string, set func(args ...string)) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	run := func(args ...string) {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
	}
	run("new-session", "-d", "-s", "doctor", "sleep 60")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	return sock + ",1,0", run
}

func TestTmux(t *testing.T) {
	tmuxVar, set := tmuxServer(t)
	o := Options{Getenv: env("TMUX", tmuxVar), Tmux: "tmux"}
	set("set", "-sg", "escape-time", "500")
	set("set", "-g", "set-clipboard", "off")
	set("set", "-g", "default-terminal", "screen")
	f := tmuxProbe(context.Background(), o)[0]
	if f.Verdict != Warn {
		t.Fatalf("slow escape, no clipboard, screen: %+v", f)
	}
	for _, want := range []string{"escape-time 10", "set-clipboard on", "default-terminal tmux-256color"} {
		if !strings.Contains(f.Fix, want) {
			t.Errorf("fix lacks %q:\n%s", want, f.Fix)
		}
	}
	if !strings.Contains(f.Detail, "500") {
		t.Errorf("detail does not show escape-time 500: %q", f.Detail)
	}
	set("set", "-sg", "escape-time", "10")
	set("set", "-g", "set-clipboard", "external")
	set("set", "-g", "default-terminal", "tmux-256color")
	if f := tmuxProbe(context.Background(), o)[0]; f.Verdict != OK {
		t.Errorf("good tmux settings: %+v", f)
	}
	if f := tmuxProbe(context.Background(), Options{Getenv: env()})[0]; f.Verdict != Skip {
		t.Errorf("outside tmux: %+v", f)
	}
}

// A tmux that hangs must not hold doctor past its budget.
func TestHungTmux(t *testing.T) {
	fake := hangingTmux(t)
	o := opts(t)
	o.Cluster.Off = true
	o.Getenv = env("TERM", "xterm-256color", "LANG", "C.UTF-8", "TMUX", "/nowhere,1,0")
	o.Tmux = fake
	r := within(t, o)
	expect(t, r, map[string]Verdict{"tmux": Warn})
}

// hangingTmux is a tmux that never answers: a shell whose child holds
// its output open, as a wedged tmux would, until the test ends (its
// directory, removed then, is what keeps it going). Nothing is killed by
// pid: a pid read later may be another process's.
func hangingTmux(t *testing.T) string {
	t.Helper()
	alive := t.TempDir()
	fake := filepath.Join(t.TempDir(), "tmux")
	script := "#!/bin/sh\n(while [ -d '" + alive + "' ]; do sleep 0.1; done) &\nwait\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return fake
}

func TestDeadlineReportsUnfinishedProbes(t *testing.T) {
	fake := hangingTmux(t)
	o := opts(t)
	o.Cluster.Off = true
	o.Getenv = env("TERM", "xterm-256color", "LANG", "C.UTF-8", "TMUX", "/nowhere,1,0")
	o.Tmux = fake
	o.Deadline = 300 * time.Millisecond
	// Run, not within: the cut is what is looked at. Reported unfinished,
	// the run did not wait for the probe (its own timeout is longer).
	r := Run(context.Background(), o)
	f := byID(t, r, "tmux")
	if f.Verdict != Fail || !strings.Contains(f.Detail, unfinished) {
		t.Errorf("unfinished probe: %+v", f)
	}
}

func TestWriteShowsFixesAndSummary(t *testing.T) {
	r := Result{Findings: []Finding{
		finding("root", Fail, "없음", "mkdir -p /root/gpuop"),
		finding("terminal", OK, "좋음", "should not print"),
		finding("tmux", Warn, "느림", "tmux set -sg escape-time 10"),
	}}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"[문제] 실습 루트", "mkdir -p /root/gpuop", "tmux set -sg escape-time 10", "문제 1개, 주의 1개"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "should not print") {
		t.Errorf("a fix was printed for a finding that is fine:\n%s", out)
	}
	// Titles are padded to one column so details line up.
	col := -1
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "[") {
			continue
		}
		i := strings.Index(line, "  ")
		w := displayWidth(line[:i])
		if col >= 0 && w != col {
			t.Errorf("details not aligned:\n%s", out)
		}
		col = w
	}
}

// With several labs (none chosen) each lab's root, nodes, change detection
// and progress are findings of their own, named by the lab; the
// environment's findings appear once.
func TestSeveralLabs(t *testing.T) {
	o := opts(t)
	o.Cluster.Off = true
	o.Labs = append(o.Labs, Lab{ID: "driver-reboot", Root: labroot.Root{Path: filepath.Join(t.TempDir(), "missing")}, Nodes: []string{"gpu-node-1"}})
	r := within(t, o)
	count := map[string]int{}
	for _, f := range r.Findings {
		count[f.ID]++
		perLab := f.ID == "root" || f.ID == "nodes" || f.ID == "access" || f.ID == "polling" || f.ID == "state"
		if perLab != (f.Lab != "") || perLab && !strings.Contains(f.Title, "("+f.Lab+")") {
			t.Errorf("%s: lab %q, title %q", f.ID, f.Lab, f.Title)
		}
		if f.ID == "root" && f.Lab == "driver-reboot" && f.Verdict != Warn {
			t.Errorf("driver-reboot's missing root: %+v", f)
		}
	}
	for id, n := range map[string]int{"kubeconfig": 1, "apiserver": 1, "watcher": 1, "tmux": 1, "root": 2, "nodes": 2, "access": 2, "polling": 2, "state": 2} {
		if count[id] != n {
			t.Errorf("%d %s findings, want %d", count[id], id, n)
		}
	}
	// One lab: no lab named on its findings, as before.
	for _, f := range within(t, opts(t)).Findings {
		if f.Lab != "" || strings.Contains(f.Title, "gpu-incident") {
			t.Errorf("one lab: %+v", f)
		}
	}
}
