package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labrun/textout"
)

// classKubeconfig writes a class kubeconfig (as init writes them) for a
// server that is not a working class cluster.
func classKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "learner-01.kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: class
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: learner-01
  user:
    token: t
contexts:
- name: learner-01
  context: {cluster: class, user: learner-01, namespace: workshop}
current-context: learner-01
`, server)
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A class cluster that is down (nothing listens) or slow (accepts and
// never answers) changes nothing about `check --watch`: the same lines,
// at the same moments, as the lab without a class; the publisher says
// retrying.
func TestWatchWithClassDownOrSlow(t *testing.T) {
	if labkittest.GPUSteps(t)[0].Eval == nil {
		t.Fatal("the file checks of step 1 are not registered")
	}
	slow, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	go func() {
		for {
			c, err := slow.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, say nothing
		}
	}()
	ref, err := os.ReadFile("../../content/labs/gpu-incident/reference/etc/containerd/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	for name, server := range map[string]string{"down": "https://127.0.0.1:1", "slow": "https://" + slow.Addr().String()} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "etc", "containerd", "config.toml")
			os.MkdirAll(filepath.Dir(cfg), 0o755)
			write(t, cfg, string(ref))
			f := newFactory(cli.LabFlags{Root: root, StateDir: t.TempDir(), Lab: "gpu-incident"}, cli.ClusterFlags{NoCluster: true})
			s, err := f.Session(false)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pub := s.Join(ctx, cli.ClassFlags{File: classKubeconfig(t, server)}, false)
			if pub == nil {
				t.Fatalf("class not started: %v", s.Warnings)
			}
			// Every source syncs long before the ready timeout, so the
			// first record must be a ready one (see
			// TestWatchRealLabFileStep).
			out, stop := startWatch(t, s.Run, textout.Watch{JSON: true, ReadyTimeout: patience})
			first := decode(t, out.waitLines(t, 1, 2*patience)[0])
			if !first.Ready {
				t.Fatalf("the first record is not ready (a source did not sync within %v): %+v", patience, first.Report)
			}
			if st := first.Step(1); st == nil || st.Status != checks.Passed {
				t.Fatalf("step 1 with the reference config: %+v", st)
			}
			write(t, cfg, strings.Replace(string(ref), "SystemdCgroup = true", `SystemdCgroup = "true"`, 1))
			rec := decode(t, out.waitLines(t, 2, 5*time.Second)[1])
			if len(rec.Changed) != 1 || rec.Changed[0] != (textout.Change{Number: 1, From: checks.Passed, To: checks.Failed}) {
				t.Fatalf("changed = %+v, want only step 1 passed->failed", rec.Changed)
			}
			if code := stop(); code != cli.ExitOK {
				t.Errorf("exit %d", code)
			}
			if name == "down" {
				deadline := time.Now().Add(patience)
				for pub.Status().State != learner.Retrying && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if st := pub.Status(); st.State != learner.Retrying || !st.Pending {
					t.Fatalf("publisher status %+v, want retrying with the record pending", st)
				}
			}
		})
	}
}

// A class kubeconfig that is not one is a warning; the lab goes on.
func TestBadClassFileIsAWarning(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "x")
	os.WriteFile(bad, []byte("apiVersion: v1\nkind: Config\n"), 0o600)
	f := newFactory(cli.LabFlags{Root: t.TempDir(), StateDir: t.TempDir(), Lab: "gpu-incident"}, cli.ClusterFlags{NoCluster: true})
	s, err := f.Session(false)
	if err != nil {
		t.Fatal(err)
	}
	if pub := s.Join(context.Background(), cli.ClassFlags{File: bad}, true); pub != nil {
		t.Fatal("a publisher from a kubeconfig without a class context")
	}
	if len(s.Warnings) == 0 || !strings.Contains(s.Warnings[len(s.Warnings)-1], bad) {
		t.Fatalf("warnings %v", s.Warnings)
	}
}
