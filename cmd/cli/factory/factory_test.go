package factory_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/cmd/cli/factory"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/kube/kubefake"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/labrun/textout"
)

func TestMain(m *testing.M) { clitest.Main(m, "gpu-incident") }

// newFactory is the default factory of a command line with these flags,
// opening real connections.
func newFactory(l cli.LabFlags, c cli.ClusterFlags) *factory.Factory {
	return factory.New(&l, &c, "test", factory.Default(cli.Streams{}))
}

// recorder opens what it is asked to with kubefake, keeping the options.
type recorder struct{ opened []kube.Options }

func (r *recorder) open(o kube.Options) (kube.Conn, error) {
	r.opened = append(r.opened, o)
	return kubefake.NewConn(kubefake.New(), nil), nil
}

// The lab cluster is the root's --kubeconfig and --context, opened once
// per command line and shared by the factories of other labs; with
// --no-cluster it is off and nothing is opened. The instructor's
// connection comes from the same flags, with the class's own limits,
// or from the sandbox's kubeconfig alone when one is named.
func TestConnectionsComeFromTheRootsFlags(t *testing.T) {
	r := &recorder{}
	deps := factory.Default(cli.Streams{})
	deps.Open = r.open
	cluster := &cli.ClusterFlags{Kubeconfig: "admin.yaml", Context: "teacher"}
	f := factory.New(&cli.LabFlags{}, cluster, "test", deps)
	if tg := f.Cluster(); tg.Reach() != kube.Connected || !tg.Named {
		t.Fatalf("Cluster: %+v", tg)
	}
	if tg := f.WithLab("driver-reboot").Cluster(); tg.Conn == nil || len(r.opened) != 1 {
		t.Fatalf("another lab's factory opened the lab cluster again: %d opens", len(r.opened))
	}
	if r.opened[0].Path != "admin.yaml" || r.opened[0].Context != "teacher" {
		t.Errorf("lab cluster opened with %+v", r.opened[0])
	}
	if _, err := f.Admin(""); err != nil {
		t.Fatal(err)
	}
	if o := r.opened[1]; o.Path != "admin.yaml" || o.Context != "teacher" || o.QPS != 100 || o.UserAgent != "labmate-class" {
		t.Errorf("instructor's connection opened with %+v, want the root's flags and the class's limits", o)
	}
	if _, err := f.Admin("sandbox.yaml"); err != nil {
		t.Fatal(err)
	}
	if o := r.opened[2]; o.Path != "sandbox.yaml" || o.Context != "" {
		t.Errorf("class init --sandbox opened %+v, want the sandbox's kubeconfig and its own context", o)
	}
	off := factory.New(&cli.LabFlags{}, &cli.ClusterFlags{NoCluster: true}, "test", deps)
	if tg := off.Cluster(); tg.Reach() != kube.Off || len(r.opened) != 3 {
		t.Errorf("--no-cluster: %+v after %d opens", tg, len(r.opened))
	}
}

// Every file labmate keeps in the state directory is under the one the
// command line names, --state-dir, else the XDG one.
func TestStateDirIsTheFlagsElseXDG(t *testing.T) {
	named := t.TempDir()
	f := factory.New(&cli.LabFlags{StateDir: named}, &cli.ClusterFlags{}, "test", factory.Default(cli.Streams{}))
	if d, err := f.StateDir(); err != nil || d != named {
		t.Errorf("StateDir with --state-dir: %q %v", d, err)
	}
	xdg := t.TempDir()
	t.Setenv("XDG_STATE_HOME", xdg)
	f = factory.New(&cli.LabFlags{}, &cli.ClusterFlags{}, "test", factory.Default(cli.Streams{}))
	if d, err := f.StateDir(); err != nil || d != filepath.Join(xdg, "labmate") {
		t.Errorf("StateDir without: %q %v", d, err)
	}
}

// A lab the flags name that cannot be resolved is said once, the same
// to every asker.
func TestTheLabIsResolvedOnce(t *testing.T) {
	f := newFactory(cli.LabFlags{Lab: "no-such-lab"}, cli.ClusterFlags{})
	_, err1 := f.Lab()
	_, err2 := f.Lab()
	if err1 == nil || !errors.Is(err1, err2) || !strings.Contains(err1.Error(), "no-such-lab") {
		t.Errorf("Lab: %v, then %v", err1, err2)
	}
}

// startWatch runs check --watch's loop on run until the test ends: its
// lines, and stop, which ends it and returns its exit code.
func startWatch(t *testing.T, run *labrun.Run, o textout.Watch) (*clitest.Buffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &clitest.Buffer{}
	code := make(chan int, 1)
	go func() {
		if err := o.Run(ctx, run, out); err != nil {
			code <- cli.ExitUsage
			return
		}
		code <- cli.ExitOK
	}()
	t.Cleanup(cancel)
	return out, func() int {
		cancel()
		select {
		case c := <-code:
			return c
		case <-time.After(clitest.Patience):
			t.Fatalf("watch did not return within %v of its context's end", clitest.Patience)
			return -1
		}
	}
}

// A class cluster that is down (nothing listens) or slow (accepts and
// never answers) changes nothing about `check --watch`: the same lines,
// at the same moments, as the lab without a class; the publisher says
// retrying.
func TestWatchWithClassDownOrSlow(t *testing.T) {
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
	ref, err := os.ReadFile(filepath.Join(labkittest.Reference(t, "gpu-incident"), "etc", "containerd", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, server := range map[string]string{"down": "https://127.0.0.1:1", "slow": "https://" + slow.Addr().String()} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "etc", "containerd", "config.toml")
			os.MkdirAll(filepath.Dir(cfg), 0o755)
			clitest.Save(t, cfg, string(ref))
			f := newFactory(cli.LabFlags{Root: root, StateDir: t.TempDir(), Lab: "gpu-incident"}, cli.ClusterFlags{NoCluster: true})
			s, err := f.Session(false)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pub := s.Join(ctx, cli.ClassFlags{File: clitest.ClassKubeconfig(t, server)}, false)
			if pub == nil {
				t.Fatalf("class not started: %v", s.Warnings)
			}
			// Every source syncs long before the ready timeout, so the
			// first record must be a ready one (see
			// TestWatchRealLabFileStep).
			out, stop := startWatch(t, s.Run, textout.Watch{JSON: true, ReadyTimeout: clitest.Patience})
			first := clitest.Record(t, out.WaitLines(t, 1)[0])
			if !first.Ready {
				t.Fatalf("the first record is not ready (a source did not sync within %v): %+v", clitest.Patience, first.Report)
			}
			if st := first.Step(1); st == nil || st.Status != checks.Passed {
				t.Fatalf("step 1 with the reference config: %+v", st)
			}
			clitest.Save(t, cfg, strings.Replace(string(ref), "SystemdCgroup = true", `SystemdCgroup = "true"`, 1))
			rec := clitest.Record(t, out.WaitLines(t, 2)[1])
			if len(rec.Changed) != 1 || rec.Changed[0] != (textout.Change{Number: 1, From: checks.Passed, To: checks.Failed}) {
				t.Fatalf("changed = %+v, want only step 1 passed->failed", rec.Changed)
			}
			if code := stop(); code != cli.ExitOK {
				t.Errorf("exit %d", code)
			}
			if name == "down" {
				deadline := time.Now().Add(clitest.Patience)
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

var _ = slices.Contains[[]string]
