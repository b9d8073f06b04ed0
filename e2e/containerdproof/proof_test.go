package containerdproof

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/hack/containerd"
)

// criTable is where each release's dump holds the CRI runtime plugin's
// configuration: 1.x prints config version 2, whose CRI plugin is
// io.containerd.grpc.v1.cri; 2.x prints version 3, where the runtime half
// of it is io.containerd.cri.v1.runtime (containerd v2.2.9
// cmd/containerd/command/config.go outputConfig, docs/cri/config.md).
var criTable = map[string]string{
	"1.7": "io.containerd.grpc.v1.cri",
	"2.2": "io.containerd.cri.v1.runtime",
}

// binaries builds (or finds cached) each release's containerd once per
// test binary.
var binaries = struct {
	sync.Mutex
	paths map[string]string
	errs  map[string]error
}{paths: map[string]string{}, errs: map[string]error{}}

func binary(t *testing.T, line string) string {
	t.Helper()
	binaries.Lock()
	defer binaries.Unlock()
	if p, ok := binaries.paths[line]; ok {
		return p
	}
	if err, ok := binaries.errs[line]; ok {
		t.Fatal(err)
	}
	r, _ := containerd.Find(line)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var log bytes.Buffer
	p, err := containerd.Build(ctx, r, &log)
	if err != nil {
		err = fmt.Errorf("%v\n%s", err, log.String())
		binaries.errs[line] = err
		t.Fatal(err)
	}
	if log.Len() > 0 {
		t.Logf("%s", log.String())
	}
	binaries.paths[line] = p
	return p
}

func e2e(t *testing.T) {
	t.Helper()
	if os.Getenv("LABMATE_E2E") != "1" {
		t.Skip("skipping: set LABMATE_E2E=1 to build containerd from the Go module proxy and run it (make test does)")
	}
}

// TestContainerdDumpsWhatThePagesSay runs `containerd --config FILE config
// dump` of each release a claim names on the claim's files, and compares
// what it printed (parsed as TOML) with the claim.
func TestContainerdDumpsWhatThePagesSay(t *testing.T) {
	e2e(t)
	eachRun(t, func(c claim) bool { return c.Dump != nil }, func(t *testing.T, lab string, c claim, line string) {
		bin := binary(t, line)
		cfg, err := layOut(lab, c, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		stdout, stderr, err := run(bin, "--config", cfg, "config", "dump")
		judgeDump(t, lab, c, line, stdout, stderr, err)
	})
}

// eachRun runs fn in a subtest LAB/CLAIM/RELEASE for every release of
// every claim that keep says is about what the test observes.
func eachRun(t *testing.T, keep func(claim) bool, fn func(t *testing.T, lab string, c claim, line string)) {
	for _, l := range readClaims(t) {
		for _, c := range l.claims {
			if !keep(c) {
				continue
			}
			for _, line := range c.Containerd {
				t.Run(l.lab+"/"+c.ID+"/"+line, func(t *testing.T) { fn(t, l.lab, c, line) })
			}
		}
	}
}

// run runs containerd with a deadline, its output captured.
func run(bin string, args ...string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = nil
	err = cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

func judgeDump(t *testing.T, lab string, c claim, line string, stdout, stderr []byte, runErr error) {
	t.Helper()
	where := fmt.Sprintf("%s/%s:%d (%s) says of containerd %s", lab, c.Page, c.Line, c.ID, line)
	want := c.Dump
	if want.Fails {
		if runErr == nil {
			t.Fatalf("%s: config dump refuses these files; it printed a configuration:\n%s", where, stdout)
		}
		if !strings.Contains(string(stderr), want.Error) {
			t.Fatalf("%s: config dump refuses them with %q; it failed (%v) with:\n%s", where, want.Error, runErr, stderr)
		}
		return
	}
	if runErr != nil {
		t.Fatalf("%s: config dump prints a configuration; it failed (%v):\n%s", where, runErr, stderr)
	}
	var dump map[string]any
	if err := toml.Unmarshal(stdout, &dump); err != nil {
		t.Fatalf("config dump printed what TOML cannot read (%v):\n%s", err, stdout)
	}
	plugins, _ := dump["plugins"].(map[string]any)
	cri, ok := plugins[criTable[line]].(map[string]any)
	if !ok {
		t.Fatalf("%s: the dump has no [plugins.%q] table; its plugins: %v", where, criTable[line], sortedKeys(plugins))
	}
	got := []string{}
	if rt, ok := lookup(cri, "containerd.runtimes").(map[string]any); ok {
		got = sortedKeys(rt)
	}
	wantRt := slices.Clone(want.Runtimes)
	slices.Sort(wantRt)
	if want.Runtimes != nil && !slices.Equal(got, wantRt) {
		t.Errorf("%s: the dump's CRI runtime handlers are %v; containerd %s printed %v", where, wantRt, line, got)
	}
	for _, key := range sortedKeys(want.Values) {
		v := lookup(cri, key)
		if !reflect.DeepEqual(v, want.Values[key]) {
			t.Errorf("%s: %s = %#v (%T); containerd %s printed %#v (%T)", where, key, want.Values[key], want.Values[key], line, v, v)
		}
	}
	if t.Failed() {
		t.Logf("the dump's [plugins.%q]:\n%s", criTable[line], mustTOML(cri))
	}
}

// lookup follows a dotted path of table keys (no key of the CRI table's
// path holds a dot).
func lookup(m map[string]any, path string) any {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = t[k]
	}
	return cur
}

func mustTOML(v any) string {
	out, err := toml.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

// TestContainerdDaemonDoesWhatThePagesSay runs the daemon itself, as root,
// on a temporary root, state and socket: what SIGHUP does, whether a
// configuration changed on disk reaches the running daemon and the next
// one, whether the CRI plugin loads with a claim's files.
func TestContainerdDaemonDoesWhatThePagesSay(t *testing.T) {
	e2e(t)
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs as root: the daemon's claims must be run there")
		}
		t.Skip("skipping: containerd's daemon needs root (its root directory, mounts, cgroups); the pages say what the code shows")
	}
	eachRun(t, func(c claim) bool { return c.Daemon != nil }, judgeDaemon)
}

// daemon is a containerd started by the test.
type daemon struct {
	cmd  *exec.Cmd
	log  *logLines
	done chan struct{}
	err  error
}

// logLines keeps what the daemon logs (JSON lines), read as entries when
// asked.
type logLines struct {
	mu  sync.Mutex
	raw bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.raw.Write(p)
	return len(p), nil
}

// String is the log so far.
func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.raw.String()
}

// snapshot reads the lines written so far as JSON entries.
func (l *logLines) snapshot() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.raw.Bytes()))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// hangupAtDefault makes the daemons this test starts get SIGHUP at its
// default disposition, as a service manager starts containerd. A signal
// the test binary was started with ignored (the suite run under nohup)
// stays ignored across exec, and a containerd that ignores SIGHUP would
// prove nothing of what SIGHUP does. Notify installs a handler in place
// of the ignore (os/signal: a program started with SIGHUP ignored that
// calls Notify for it no longer ignores it), and exec resets a handled
// signal to its default in the child.
var hangupAtDefault = sync.OnceFunc(func() {
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
})

func startDaemon(t *testing.T, bin, cfg string) *daemon {
	t.Helper()
	hangupAtDefault()
	d := &daemon{log: &logLines{}, done: make(chan struct{})}
	d.cmd = exec.Command(bin, "--config", cfg)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	// A process group of its own: the shims or anything it starts end
	// with it.
	// The daemon also dies with the test binary however it ends
	// (Pdeathsig), so no containerd outlives a killed run.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
			<-d.done
		}
	})
	return d
}

// until waits for cond with a generous deadline, failing with what the
// daemon logged when it does not come.
func (d *daemon) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		select {
		case <-d.done:
			if cond() {
				return
			}
			t.Fatalf("containerd ended (%v) before %s; its log:\n%s", d.err, what, d.log.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 60 s; containerd's log:\n%s", what, d.log.String())
		}
	}
}

// booted: the daemon logged that it finished starting.
func (d *daemon) booted() bool {
	for _, e := range d.log.snapshot() {
		if msg, _ := e["msg"].(string); strings.HasPrefix(msg, "containerd successfully booted") {
			return true
		}
	}
	return false
}

// pluginFailure is the error the daemon logged for plugin id, if any.
func (d *daemon) pluginFailure(id string) (string, bool) {
	for _, e := range d.log.snapshot() {
		msg, _ := e["msg"].(string)
		eid, _ := e["id"].(string)
		if msg == "failed to load plugin "+id || msg == "failed to load plugin" && eid == id {
			errText, _ := e["error"].(string)
			return errText, true
		}
	}
	return "", false
}

func serves(sock string) bool {
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// harness is the daemon's own part of the configuration, written as a
// drop-in beside the claim's: its root, state and sockets in dir, logs
// as JSON, and (unless the claim is about the CRI plugin) the CRI plugins
// left out, so a daemon starts in a second and touches nothing of the
// machine's.
func harness(dir, sock, line string, withCRI bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version = 2\nroot = %q\nstate = %q\n", filepath.Join(dir, "root"), filepath.Join(dir, "state"))
	if !withCRI {
		quoted := make([]string, len(criPlugins[line]))
		for i, p := range criPlugins[line] {
			quoted[i] = fmt.Sprintf("%q", p)
		}
		fmt.Fprintf(&b, "disabled_plugins = [%s]\n", strings.Join(quoted, ", "))
	}
	fmt.Fprintf(&b, "[grpc]\n  address = %q\n[ttrpc]\n  address = %q\n", sock, sock+".ttrpc")
	b.WriteString("[debug]\n  format = \"json\"\n  level = \"info\"\n")
	return b.String()
}

// criPlugins are each release's CRI plugins, which the harness leaves out
// where a claim is not about them.
var criPlugins = map[string][]string{
	"1.7": {"io.containerd.grpc.v1.cri"},
	"2.2": {"io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images"},
}

func judgeDaemon(t *testing.T, lab string, c claim, line string) {
	t.Helper()
	bin := binary(t, line)
	where := fmt.Sprintf("%s/%s:%d (%s) says of containerd %s", lab, c.Page, c.Line, c.ID, line)
	want := c.Daemon
	// Short paths: a unix socket's path is at most 107 bytes.
	dir, err := os.MkdirTemp("", "ctrd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	etc := filepath.Join(dir, "etc")
	if err := os.MkdirAll(etc, 0o755); err != nil {
		t.Fatal(err)
	}
	// The harness's drop-in, last among the imports: its settings are
	// the last word on root, state, sockets and logging.
	harnessFile := filepath.Join(dir, "harness.toml")
	cfg, err := layOut(lab, c, etc, harnessFile)
	if err != nil {
		t.Fatal(err)
	}
	sockA, sockB := filepath.Join(dir, "a.sock"), filepath.Join(dir, "b.sock")
	writeHarness := func(sock string) {
		t.Helper()
		if err := os.WriteFile(harnessFile, []byte(harness(dir, sock, line, want.CRIPlugin != "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeHarness(sockA)
	d := startDaemon(t, bin, cfg)
	d.until(t, "a booted containerd serving "+sockA, func() bool { return d.booted() && serves(sockA) })

	if want.CRIPlugin != "" {
		errText, failed := d.pluginFailure(criPluginID[line])
		switch {
		case want.CRIPlugin == "fails" && !failed:
			t.Errorf("%s: the CRI plugin (%s) fails to load; it loaded", where, criPluginID[line])
		case want.CRIPlugin == "fails" && !strings.Contains(errText, want.FailsWith):
			t.Errorf("%s: the CRI plugin fails with %q; it failed with %q", where, want.FailsWith, errText)
		case want.CRIPlugin == "loads" && failed:
			t.Errorf("%s: the CRI plugin (%s) loads; it failed: %s", where, criPluginID[line], errText)
		}
	}
	if want.Reread {
		// The configuration changes on disk: the running daemon goes on
		// serving the socket it read at start.
		writeHarness(sockB)
		if !serves(sockA) || serves(sockB) {
			t.Errorf("%s: a running containerd keeps the configuration it read at start; after the file changed it serves %s: %v, %s: %v",
				where, sockA, serves(sockA), sockB, serves(sockB))
		}
	}
	if want.SIGHUP == "exits" {
		if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		select {
		case <-d.done:
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: SIGHUP ends containerd; 60 s after it, it still runs. Its log:\n%s", where, d.log.String())
		}
		var ws syscall.WaitStatus
		if st, ok := d.cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			ws = st
		}
		if !ws.Signaled() || ws.Signal() != syscall.SIGHUP {
			t.Errorf("%s: SIGHUP ends containerd (killed by the signal); it ended with %v", where, d.err)
		}
	}
	if want.Reread {
		if want.SIGHUP == "" {
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGTERM)
			<-d.done
		}
		// The next process, as systemd's Restart=always starts it, reads
		// the files again.
		next := startDaemon(t, bin, cfg)
		next.until(t, "the next containerd serving "+sockB, func() bool { return next.booted() && serves(sockB) })
		_ = syscall.Kill(-next.cmd.Process.Pid, syscall.SIGTERM)
		<-next.done
	}
	if t.Failed() {
		t.Logf("containerd's log:\n%s", d.log.String())
	}
}

// criPluginID is the plugin that validates the CRI runtime configuration
// in each release: 1.x's one CRI plugin (pkg/cri/cri.go initCRIService,
// ValidatePluginConfig), 2.x's runtime half (plugins/cri/runtime/plugin.go,
// ValidateRuntimeConfig).
var criPluginID = map[string]string{
	"1.7": "io.containerd.grpc.v1.cri",
	"2.2": "io.containerd.cri.v1.runtime",
}
