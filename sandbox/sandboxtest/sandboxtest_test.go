//go:build unix

package sandboxtest_test

import (
	"context"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

func TestStartSkipsWithoutE2E(t *testing.T) {
	if sandboxtest.Enabled() {
		t.Skip("LABMATE_E2E=1: covered by TestStart")
	}
	var ran bool
	t.Run("inner", func(t *testing.T) {
		sandboxtest.Start(t)
		ran = true
	})
	if ran {
		t.Fatal("Start returned without LABMATE_E2E=1; want t.Skip")
	}
}

// TestStart uses the e2e cluster the way other packages' e2e tests do:
// its own cluster, never the learner's, held by this binary for its life.
func TestStart(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	if kubeconfig != sandbox.Kubeconfig(sandboxtest.Options()) || kubeconfig == sandbox.Kubeconfig(sandbox.Options{}) {
		t.Errorf("kubeconfig = %q; the learner's is %q", kubeconfig, sandbox.Kubeconfig(sandbox.Options{}))
	}
	if ctx := sandbox.Context(sandboxtest.Options()); ctx != "kwok-"+sandboxtest.Name() {
		t.Errorf("context %q", ctx)
	}
	if _, err := os.Stat(kubeconfig); err != nil {
		t.Fatal(err)
	}
	// A second Start in the same binary reuses the first.
	if again := sandboxtest.Start(t); again != kubeconfig {
		t.Errorf("second Start = %q", again)
	}
	cs := sandboxtest.Client(t)
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "type=kwok"})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != len(sandboxtest.Options().Nodes) {
		t.Errorf("%d lab nodes, want %d", len(nodes.Items), len(sandboxtest.Options().Nodes))
	}
	ns := sandboxtest.Namespace(t, cs, "sandboxtest")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod right after Namespace: %v", err)
	}
}
