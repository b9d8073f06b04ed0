// Package sandboxtest gives end-to-end tests a running labmate sandbox
// cluster (see package sandbox).
//
// Tests call Start; it skips the test unless LABMATE_E2E=1. With
// LABMATE_E2E=1 it brings the sandbox up once per test binary, reusing a
// cluster that already runs (another package's test binary, or
// `labmate sandbox up`), and leaves it running afterwards so later test
// binaries reuse it too; `labmate sandbox down` (or sandbox.Down) removes it.
//
//	func TestSomethingE2E(t *testing.T) {
//		kubeconfig := sandboxtest.Start(t)
//		cs := sandboxtest.Client(t)
//		ns := sandboxtest.Namespace(t, cs, "mytest")
//		...
//	}
//
// The binaries must have been built first (scripts/cluster-bins.sh); with
// LABMATE_E2E=1 and no binaries, Start fails the test with the command to run.
package sandboxtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/labhub/labmate/sandbox"
)

// EnvE2E is the environment variable that enables sandbox-backed tests.
const EnvE2E = "LABMATE_E2E"

var (
	once       sync.Once
	kubeconfig string
	startErr   error
	logMu      sync.Mutex
	logTB      testing.TB
)

// Options returns the sandbox options the tests use: defaults, with the bin
// dir from LABMATE_CLUSTER_BIN when set.
func Options() sandbox.Options {
	return sandbox.Options{}
}

// Enabled reports whether LABMATE_E2E=1.
func Enabled() bool {
	return os.Getenv(EnvE2E) == "1"
}

// Start returns the kubeconfig path of a running sandbox cluster whose lab
// nodes are Ready. It calls t.Skip unless LABMATE_E2E=1, and t.Fatal when the
// sandbox cannot be brought up. The context name is sandbox.Context(Options()),
// which is also the kubeconfig's current-context.
func Start(t testing.TB) (kubeconfigPath string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("skipping sandbox e2e test: set %s=1 to run it (needs the binaries from scripts/cluster-bins.sh)", EnvE2E)
	}
	logMu.Lock()
	logTB = t
	logMu.Unlock()
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		opts := Options()
		opts.Progress = tbWriter{}
		startErr = sandbox.Up(ctx, opts)
		kubeconfig = sandbox.Kubeconfig(opts)
	})
	logMu.Lock()
	logTB = nil
	logMu.Unlock()
	if startErr != nil {
		t.Fatalf("sandbox is not available: %v", startErr)
	}
	return kubeconfig
}

// RESTConfig is Start plus a client config for the sandbox.
func RESTConfig(t testing.TB) *rest.Config {
	t.Helper()
	Start(t)
	cfg, err := sandbox.RESTConfig(Options())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Client is Start plus a clientset for the sandbox.
func Client(t testing.TB) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(RESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// Namespace creates a fresh namespace named "<prefix>-<random>", waits until
// its default service account exists (pods cannot be created before), and
// deletes it when the test ends. It returns the namespace name.
func Namespace(t testing.TB, cs kubernetes.Interface, prefix string) string {
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
type tbWriter struct{}

func (tbWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	if logTB != nil {
		logTB.Logf("sandbox: %s", strings.TrimRight(string(p), "\n"))
	} else {
		fmt.Fprintf(os.Stderr, "sandbox: %s", p)
	}
	return len(p), nil
}
