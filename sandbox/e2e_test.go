package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// testWriter turns progress lines into test log lines.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestSandboxE2E brings up a real cluster (kwokctl binary runtime) from
// nothing, checks the lab nodes, runs a pod on them, then tears the cluster
// down. The cluster is its own (sandboxtest.Own: labmate-e2e-self), never
// the learner's "labmate" nor the one the other packages' tests share.
func TestSandboxE2E(t *testing.T) {
	opts := sandboxtest.Own(t, "self")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts.Progress = testWriter{t}
	// Start from nothing: earlier test binaries leave the cluster running.
	if err := sandbox.Down(ctx, opts); err != nil {
		t.Fatalf("initial Down: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("component logs: %s/logs, kwokctl log: %s", sandbox.ClusterDir(opts), sandbox.LogFile(opts))
		}
		_ = sandbox.Down(context.Background(), opts)
	})

	start := time.Now()
	if err := sandbox.Up(ctx, opts); err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Logf("Up (cold) took %s", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	if err := sandbox.Up(ctx, opts); err != nil {
		t.Fatalf("second Up: %v", err)
	}
	t.Logf("Up (already running) took %s", time.Since(start).Round(time.Millisecond))

	kubeconfig := sandbox.Kubeconfig(opts)
	if _, err := os.Stat(kubeconfig); err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	// kwokctl keeps whatever it downloads under <workdir>/cache; every
	// binary comes from the bin dir, so there must be none.
	if cache := filepath.Join(filepath.Dir(filepath.Dir(sandbox.ClusterDir(opts))), "cache"); dirExists(cache) {
		t.Errorf("kwokctl download cache %s exists: kwokctl downloaded something", cache)
	}
	conn, err := sandbox.Connect(opts)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := conn.Typed()
	if err != nil {
		t.Fatal(err)
	}

	// The server is the Kubernetes version the binaries were built from.
	info, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	t.Logf("server version %s", info.GitVersion)
	if info.Major != "1" || info.Minor != "34" {
		t.Errorf("server version %s.%s (%s), want 1.34", info.Major, info.Minor, info.GitVersion)
	}

	// Three Ready lab nodes with the right capacity and no GPUs.
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 3 {
		t.Fatalf("got %d lab nodes, want 3", len(nodes.Items))
	}
	for _, n := range nodes.Items {
		if !strings.HasPrefix(n.Name, "lab-node-") {
			t.Errorf("unexpected node %s", n.Name)
		}
		if n.Annotations["kwok.x-k8s.io/node"] != "fake" {
			t.Errorf("%s: annotations %v", n.Name, n.Annotations)
		}
		ready := false
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if !ready {
			t.Errorf("%s is not Ready: %v", n.Name, n.Status.Conditions)
		}
		for _, rl := range []corev1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
			cpu, mem, pods := rl[corev1.ResourceCPU], rl[corev1.ResourceMemory], rl[corev1.ResourcePods]
			if cpu.String() != "16" || mem.String() != "32Gi" || pods.String() != "110" {
				t.Errorf("%s: cpu %s memory %s pods %s, want 16 32Gi 110", n.Name, cpu.String(), mem.String(), pods.String())
			}
			for name := range rl {
				if strings.Contains(string(name), "gpu") {
					t.Errorf("%s has GPU resource %s", n.Name, name)
				}
			}
		}
	}

	// A pod with a cpu request in a fresh namespace gets scheduled on a lab
	// node and kwok marks it Running and Ready.
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "selftest"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "worker", Namespace: ns.Name},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:  "main",
				Image: "busybox",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
				},
			}},
		},
	}
	start = time.Now()
	// The namespace's default service account appears shortly after the
	// namespace; pod creation is refused until then.
	for {
		_, err = cs.CoreV1().Pods(ns.Name).Create(ctx, pod, metav1.CreateOptions{})
		if err == nil {
			break
		}
		if ctx.Err() != nil || !strings.Contains(err.Error(), "serviceaccount") {
			t.Fatalf("create pod: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var got *corev1.Pod
	for {
		got, err = cs.CoreV1().Pods(ns.Name).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Phase == corev1.PodRunning && podReady(got) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("pod did not become Running/Ready: phase %s node %q conditions %v", got.Status.Phase, got.Spec.NodeName, got.Status.Conditions)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("pod Running on %s after %s", got.Spec.NodeName, time.Since(start).Round(time.Millisecond))
	if !strings.HasPrefix(got.Spec.NodeName, "lab-node-") {
		t.Errorf("pod scheduled on %q, want a lab node", got.Spec.NodeName)
	}

	st, err := sandbox.Status(ctx, opts)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	t.Logf("status:\n%s", st)
	if !st.Created || !st.Running || !st.Ready() || len(st.Nodes) != 3 || len(st.MissingBinaries) != 0 {
		t.Errorf("Status = %+v", st)
	}
	if st.Context != "kwok-"+opts.Name || st.Kubeconfig != kubeconfig {
		t.Errorf("Status names: context %q kubeconfig %q", st.Context, st.Kubeconfig)
	}

	start = time.Now()
	if err := sandbox.Down(ctx, opts); err != nil {
		t.Fatalf("Down: %v", err)
	}
	t.Logf("Down took %s", time.Since(start).Round(time.Millisecond))
	st, err = sandbox.Status(ctx, opts)
	if err != nil {
		t.Fatalf("Status after Down: %v", err)
	}
	if st.Created || st.Running {
		t.Errorf("Status after Down = %+v", st)
	}
	if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
		t.Errorf("kubeconfig still there after Down: %v", err)
	}
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
