// Package sandboxtest gives end-to-end tests a running sandbox cluster (see
// package sandbox) of their own: "labmate-e2e", or $LABMATE_E2E_CLUSTER.
// Never the learner's "labmate" cluster from `labmate sandbox up`: the lab
// walks delete its namespaces, its RuntimeClass and its nodes' GPU amounts.
//
// Tests call Start; it skips the test unless LABMATE_E2E=1. With
// LABMATE_E2E=1 it brings the e2e cluster up once per test binary, reusing
// it when it already runs (an earlier test binary left it), and leaves it
// running so later test binaries reuse it too. scripts/test.sh removes it at
// the end (`labmate sandbox down --name labmate-e2e`).
//
//	func TestSomethingE2E(t *testing.T) {
//		kubeconfig := sandboxtest.Start(t)
//		cs := sandboxtest.Client(t)
//		ns := sandboxtest.Namespace(t, cs, "mytest")
//		...
//	}
//
// A test that changes the lab's own objects (namespaces gpu-lab and
// gpu-operator, RuntimeClass nvidia, the nodes' GPU amounts) calls LockLab
// first, so that no two such tests interleave, in any test binary. A test
// that needs a cluster of its own calls Own (the sandbox package's
// self-test, which starts and stops it) or ForLab (one set up for a lab as
// `labmate sandbox up --lab ID` does: e2e's lab proofs, which run at once,
// each on its own).
//
// The binaries must have been built first (scripts/cluster-bins.sh); with
// LABMATE_E2E=1 and no binaries, Start fails the test with the command to run.
package sandboxtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/internal/testslots"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/sandbox"
)

const (
	// EnvE2E is the environment variable that enables sandbox-backed tests.
	EnvE2E = "LABMATE_E2E"

	// EnvCluster overrides the e2e cluster's name.
	EnvCluster = "LABMATE_E2E_CLUSTER"

	// DefaultCluster is the e2e cluster's name when EnvCluster is unset.
	DefaultCluster = "labmate-e2e"

	// lockWait bounds every wait for a lock when the test has no deadline.
	lockWait = 30 * time.Minute
)

var (
	// mu guards the fields below.
	mu       sync.Mutex
	up       bool  // Up succeeded in this process
	startErr error // Up failed in this process: later Starts fail at once
)

// Name is the e2e cluster's name: $LABMATE_E2E_CLUSTER, else DefaultCluster.
func Name() string {
	if n := os.Getenv(EnvCluster); n != "" {
		return n
	}
	return DefaultCluster
}

// Options returns the sandbox options of the e2e cluster: Name(), the
// bin dir from LABMATE_CLUSTER_BIN (sandbox's default) when set, and the
// GPU incident lab's nodes, which Up creates. It claims no lab: the tests
// of every lab share the cluster, each resetting it to its lab's topology
// (sandbox.Reset, or `labmate lab verify`) under LockLab.
func Options() sandbox.Options {
	return sandbox.Options{Name: Name(), Nodes: gpuNodes()}
}

// gpuNodes is the GPU incident lab's topology, the e2e cluster's default.
func gpuNodes() []sandbox.NodeSpec {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		panic(err)
	}
	nodes, err := sandbox.NodesOf(lab)
	if err != nil {
		panic(err)
	}
	return nodes
}

// Enabled reports whether LABMATE_E2E=1.
func Enabled() bool {
	return os.Getenv(EnvE2E) == "1"
}

// LockDir is the directory of the e2e locks: sandbox's own state directory,
// ${XDG_CACHE_HOME:-$HOME/.cache}/labmate/sandbox.
func LockDir() string {
	return filepath.Dir(sandbox.LogFile(Options()))
}

// options skips the test unless LABMATE_E2E=1, and returns Options after
// refusing the learner's cluster name, which a stray
// LABMATE_E2E_CLUSTER=labmate would otherwise hand to the tests.
func options(tb testing.TB) sandbox.Options {
	tb.Helper()
	if !Enabled() {
		tb.Skipf("skipping sandbox e2e test: set %s=1 to run it (needs the binaries from scripts/cluster-bins.sh)", EnvE2E)
	}
	opts := Options()
	if opts.Name == sandbox.DefaultName {
		tb.Fatalf("%s=%s names the learner's sandbox cluster; the e2e tests change and stop their cluster, so they need another name (default %s)",
			EnvCluster, opts.Name, DefaultCluster)
	}
	return opts
}

// Start returns the kubeconfig path of the running e2e cluster, whose lab
// nodes are Ready. It calls t.Skip unless LABMATE_E2E=1, and t.Fatal when
// the cluster cannot be brought up. The context name is
// sandbox.Context(Options()), which is also the kubeconfig's
// current-context.
func Start(t testing.TB) (kubeconfigPath string) {
	t.Helper()
	opts := options(t)
	mu.Lock()
	defer mu.Unlock()
	if !up && startErr == nil {
		startErr = bringUp(t, opts)
		up = startErr == nil
	}
	if startErr != nil {
		t.Fatalf("sandbox %q is not available: %v", opts.Name, startErr)
	}
	return sandbox.Kubeconfig(opts)
}

// bringUp starts the cluster. mu is held.
func bringUp(t testing.TB, opts sandbox.Options) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts.Progress = tbWriter{t}
	return sandbox.Up(ctx, opts)
}

// LockLab holds the e2e cluster's lab lock until the test ends: an OS file
// lock in LockDir(), so tests in other binaries wait too, and it goes away
// with the process if the test dies. Every test that changes the lab's own
// objects (namespaces gpu-lab and gpu-operator, RuntimeClass nvidia, the
// nodes' GPU amounts) takes it before its first change and before
// registering the cleanup that undoes them. A test must not take it twice.
// Like Start, it skips the test unless LABMATE_E2E=1.
func LockLab(tb testing.TB) {
	tb.Helper()
	opts := options(tb)
	unlock, err := acquire(tb, lockPath(opts, "lab"), true, "the lab lock (another e2e test is changing the lab's objects)")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(unlock)
}

// lockPath is the cluster's lock file of this kind: LockDir()/<name>-<kind>.lock.
func lockPath(opts sandbox.Options, kind string) string {
	return filepath.Join(LockDir(), opts.Name+"-"+kind+".lock")
}

// acquire takes the lock at path, exclusive or shared, logging once when
// it has to wait (for what) and giving up at the test's deadline.
func acquire(tb testing.TB, path string, exclusive bool, what string) (unlock func(), err error) {
	tb.Helper()
	limit := time.Now().Add(lockWait)
	if d, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, has := d.Deadline(); has {
			limit = end.Add(-10 * time.Second)
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), limit)
	defer cancel()
	return lockfile.Lock(ctx, path, lockfile.Options{Shared: !exclusive, Waiting: func() { tb.Logf("waiting for %s (%s)", what, path) }})
}

// Conn is Start plus a connection to the e2e cluster.
func Conn(t testing.TB) kube.Conn {
	t.Helper()
	Start(t)
	conn, err := sandbox.Connect(Options())
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// Client is Start plus the typed client of a connection to the e2e
// cluster.
func Client(t testing.TB) kube.Interface {
	t.Helper()
	cs, err := Conn(t).Typed()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// Namespace creates a fresh namespace named "<prefix>-<random>", waits until
// its default service account exists (pods cannot be created before), and
// deletes it when the test ends. It returns the namespace name.
func Namespace(t testing.TB, cs kube.Interface, prefix string) string {
	t.Helper()
	if prefix == "" {
		prefix = "e2e"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: strings.ToLower(prefix) + "-",
			Labels:       map[string]string{"labmate.dev/e2e": "true"},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
	})
	for {
		if _, err := cs.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{}); err == nil {
			return ns.Name
		}
		select {
		case <-ctx.Done():
			t.Fatalf("namespace %s: default service account did not appear", ns.Name)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tbWriter sends sandbox progress lines to the log of the test that is
// starting the sandbox.
type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Logf("sandbox: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Dynamic is Start plus the dynamic client of a connection to the e2e
// cluster (any kind, custom resources included).
func Dynamic(t testing.TB) dynamic.Interface {
	t.Helper()
	dyn, err := Conn(t).Dynamic()
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// Own names a cluster of the test's own, Name()+"-"+suffix, with the
// e2e cluster's nodes, and takes it down when the test ends; the test
// brings it up (sandbox.Up) when it likes. Another test binary's cluster
// is never touched. Like Start, it skips the test unless LABMATE_E2E=1.
//
// A cluster of one's own costs a core or so while it is busy: Own first
// takes one of the machine-wide slots (internal/testslots, across test
// binaries) and holds it until the cluster is down, so that tests never
// run more clusters at once than the machine carries; the others wait.
func Own(t testing.TB, suffix string) sandbox.Options {
	t.Helper()
	opts := options(t)
	opts.Name += "-" + suffix
	testslots.Take(t) // released after the cluster is down: cleanups run last first
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := sandbox.Down(ctx, opts); err != nil {
			t.Errorf("sandbox %s down: %v", opts.Name, err)
		}
	})
	return opts
}

// ForLab brings up a sandbox of the test's own for one lab, as `labmate
// sandbox up --lab ID --name NAME` does (the lab's nodes, its manifests,
// the marker naming it), named Name()+"-"+suffix, and takes it down when
// the test ends. Tests that each call it can run at once: a lab's proof
// with its near-misses, mostly waiting on its cluster, runs beside the
// other labs' instead of after them. Like Start, it skips the test unless
// LABMATE_E2E=1.
func ForLab(t testing.TB, lab *content.Lab, suffix string) sandbox.Options {
	t.Helper()
	opts := Own(t, suffix)
	opts.Lab = lab.ID
	var err error
	if opts.Nodes, err = sandbox.NodesOf(lab); err != nil {
		t.Fatal(err)
	}
	if opts.Manifests, err = sandbox.ManifestsOf(lab); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	up := opts
	up.Progress = tbWriter{t}
	if err := sandbox.Up(ctx, up); err != nil {
		t.Fatalf("sandbox %s: %v", opts.Name, err)
	}
	return opts
}
