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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/doctor"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/sandbox/sandboxtest"
	"github.com/labhub/labmate/trace"
)

// freshHome is a newcomer's machine after `labmate sandbox up`: a new
// HOME, no $KUBECONFIG, no ~/.kube/config, and the sandbox's kubeconfig
// where sandbox up writes it ($HOME/.kwok/clusters/labmate). That
// directory is a link to the e2e cluster's own: the same files, and no
// second control plane on the machine. It returns the lab root to use.
func freshHome(t *testing.T, kubeconfig string) string {
	t.Helper()
	home := t.TempDir()
	link := filepath.Join(home, ".kwok", "clusters", "labmate")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(kubeconfig), link); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"HOME": home, "KUBECONFIG": "", "KWOK_WORKDIR": "", "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": "", catalog.EnvLab: ""} {
		t.Setenv(k, v)
	}
	return t.TempDir()
}

// Every command that needs the lab cluster finds the sandbox by itself,
// through the one loader, on a fresh HOME: check, report, doctor, lab
// verify, the TUI, class init --sandbox (and class export after it).
func TestFreshHomeFindsTheSandboxE2E(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	sandboxtest.LockLab(t) // lab verify resets the lab's objects
	server := sandboxtest.Conn(t).Host()
	cs := sandboxtest.Client(t) // before HOME moves: the e2e cluster lives under the real one
	root := freshHome(t, kubeconfig)
	lab := []string{"--lab", "gpu-incident", "--root", root}

	check := func(t *testing.T) {
		code, out, errOut := runStreams(append([]string{"check", "--json"}, lab...)...)
		var rep struct {
			Cluster observe.ClusterObs `json:"cluster"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != cli.ExitFail {
			t.Fatalf("exit %d (want 1: the files are missing), %v\n%s%s", code, err, out, errOut)
		}
		if rep.Cluster.State != observe.ClusterSynced || rep.Cluster.Server != server {
			t.Errorf("cluster %+v, want synced with %s", rep.Cluster, server)
		}
	}
	t.Run("check", check)
	// kubectl's rules name a file with nothing in it: still no
	// configuration, so still the sandbox (the old loader stopped at the
	// file's existence and said "no configuration has been provided").
	t.Run("check with an empty ~/.kube/config", func(t *testing.T) {
		kube := filepath.Join(os.Getenv("HOME"), ".kube", "config")
		if err := os.MkdirAll(filepath.Dir(kube), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(kube, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(kube)
		check(t)
	})
	t.Run("report", func(t *testing.T) {
		code, out, errOut := runStreams(append([]string{"report"}, lab...)...)
		if code != cli.ExitOK || !strings.Contains(out, server) {
			t.Errorf("exit %d, the report does not name %s:\n%s%s", code, server, out, errOut)
		}
	})
	t.Run("doctor", func(t *testing.T) {
		goodTerminal(t)
		_, out, errOut := runStreams(append([]string{"doctor", "--json"}, lab...)...)
		var r struct {
			Findings []doctor.Finding `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s%s", err, out, errOut)
		}
		for _, f := range r.Findings {
			if (f.ID == "kubeconfig" || f.ID == "apiserver" || f.ID == "nodes") && f.Verdict != doctor.OK {
				t.Errorf("%s: %s %s", f.ID, f.Verdict, f.Detail)
			}
		}
	})
	t.Run("lab verify", func(t *testing.T) {
		code, out, errOut := runStreams("lab", "verify", "gpu-incident")
		if code != cli.ExitOK {
			t.Errorf("exit %d\n%s%s", code, out, errOut)
		}
	})
	t.Run("tui", func(t *testing.T) { tuiFindsTheSandbox(t, root, server) })
	t.Run("class init --sandbox", func(t *testing.T) {
		ns := "class-fresh-" + rand.String(6)
		t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
		out := filepath.Join(t.TempDir(), "class")
		code, stdout, errOut := runStreams("class", "init", "--sandbox", "-n", ns, "--lab", "gpu-incident", "--out", out)
		if code != cli.ExitOK {
			t.Fatalf("class init: exit %d\n%s%s", code, stdout, errOut)
		}
		if _, err := os.Stat(filepath.Join(out, "learner-01.kubeconfig")); err != nil {
			t.Error(err)
		}
		// The instructor's other commands find the same cluster.
		code, stdout, errOut = runStreams("class", "export", "-n", ns)
		var exp class.Export
		if err := json.Unmarshal([]byte(stdout), &exp); err != nil || code != cli.ExitOK || len(exp.Learners) != 3 {
			t.Errorf("class export: exit %d, %v, %+v\n%s", code, err, exp, errOut)
		}
	})
}

// tuiFindsTheSandbox runs the TUI (this test binary as labmate) in a real
// tmux pane with --record, and reads the recording: the cluster source
// reached the sandbox and synced.
func tuiFindsTheSandbox(t *testing.T, root, server string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for the TUI's whole-program test")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	socket := "labmate-fresh-" + rand.String(6)
	tmux := func(args ...string) ([]byte, error) {
		return exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
	}
	t.Cleanup(func() { _, _ = tmux("kill-server") })
	var env []string
	for _, k := range []string{"HOME", "PATH", sandboxEnvBin} {
		env = append(env, k+"="+os.Getenv(k))
	}
	cmdline := fmt.Sprintf("env -i %s TERM=xterm-256color LANG=C.UTF-8 LABMATE_TEST_AS_LABMATE=1 %q --lab gpu-incident --root %q --record %q",
		strings.Join(quoteAll(env), " "), self, root, rec)
	if out, err := tmux("new-session", "-d", "-x", "80", "-y", "24", cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	// The recorder writes each observation through; a last line still
	// being written is a warning of the reader, not an error.
	synced := func() bool {
		tr, err := trace.Open(rec)
		if err != nil {
			return false
		}
		for _, r := range tr.Records {
			if c := r.Obs.Cluster; c != nil && c.State == observe.ClusterSynced && c.Server == server {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(60 * time.Second)
	for !synced() {
		if time.Now().After(deadline) {
			raw, _ := os.ReadFile(rec)
			pane, _ := tmux("capture-pane", "-p")
			t.Fatalf("no synced cluster in the TUI's recording within 60 s:\n%s\npane:\n%s", raw, pane)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out, err := tmux("send-keys", "q"); err != nil {
		t.Fatalf("tmux send-keys: %v %s", err, out)
	}
	for {
		if _, err := tmux("has-session"); err != nil {
			break // the TUI quit, and its session with it
		}
		if time.Now().After(deadline) {
			pane, _ := tmux("capture-pane", "-p")
			t.Fatalf("the TUI did not quit on q:\n%s", pane)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if tr, err := trace.Open(rec); err != nil || len(tr.Warnings) > 0 {
		t.Errorf("the recording after quitting: %v %v", err, tr.Warnings)
	}
}

const sandboxEnvBin = "LABMATE_CLUSTER_BIN"

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
