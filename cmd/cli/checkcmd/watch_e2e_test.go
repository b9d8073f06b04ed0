package checkcmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

const gpuResource = corev1.ResourceName("nvidia.com/gpu")

// A cluster step under `check --watch`, against the e2e sandbox: step 5 passes
// with the reference files and a really Unschedulable pod; deleting the
// RuntimeClass (a change in the cluster, not in a file) prints exactly one
// line, with step 5's new status; recreating it prints exactly one more.
func TestWatchClusterStepE2E(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	// The e2e walk changes the same objects.
	sandboxtest.LockLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	resetStep5(ctx, t, cs)
	t.Cleanup(func() { resetStep5(context.Background(), t, cs) })

	root := labkittest.ReferenceRoot(t, "gpu-incident")
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gpu-lab"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the default service account in gpu-lab", func() bool {
		_, err := cs.CoreV1().ServiceAccounts("gpu-lab").Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	createRuntimeClass(ctx, t, cs)
	var pod corev1.Pod
	raw, err := os.ReadFile(filepath.Join(root, "k8s", "gpu-pod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(raw, &pod); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("gpu-lab").Create(ctx, &pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var cond corev1.PodCondition
	eventually(t, "cuda-probe to be Unschedulable", func() bool {
		p, err := cs.CoreV1().Pods("gpu-lab").Get(ctx, "cuda-probe", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
				cond = c
				return true
			}
		}
		return false
	})
	clitest.Save(t, filepath.Join(root, "out", "unscheduled.txt"), cond.Reason+"\n"+cond.Message+"\n")

	// Every source syncs long before the ready timeout, so the first
	// record must be a ready one (see TestWatchRealLabFileStep).
	out, stop := watching(t, clitest.NewTestFactory(t).WithKubeconfigs(), "--json", "--step", "5", "--lab", "gpu-incident",
		"--root", root, "--kubeconfig", kubeconfig, "--state-dir", t.TempDir(), "--timeout", clitest.Patience.String())
	first := clitest.Record(t, out.WaitLines(t, 1)[0])
	if !first.Ready {
		t.Fatalf("the first record is not ready (a source did not sync within %v): %+v", clitest.Patience, first.Report)
	}
	if st := first.Step(5); st == nil || st.Status != checks.Passed {
		t.Fatalf("step 5 before the change: %+v", first.Steps)
	}
	quiet(t, out, 1, 1500*time.Millisecond)

	if err := cs.NodeV1().RuntimeClasses().Delete(ctx, "nvidia", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	rec := clitest.Record(t, out.WaitLines(t, 2)[1])
	if len(rec.Changed) != 1 || rec.Changed[0].Number != 5 || rec.Changed[0].To == checks.Passed || rec.Steps[0].Status != rec.Changed[0].To {
		t.Fatalf("after deleting the RuntimeClass: changed %+v, steps %+v", rec.Changed, rec.Steps)
	}
	quiet(t, out, 2, 1500*time.Millisecond)

	createRuntimeClass(ctx, t, cs)
	rec = clitest.Record(t, out.WaitLines(t, 3)[2])
	if len(rec.Changed) != 1 || rec.Changed[0].To != checks.Passed {
		t.Fatalf("after recreating the RuntimeClass: %+v", rec.Changed)
	}
	quiet(t, out, 3, 1500*time.Millisecond)
	if code := stop(); code != cli.ExitOK {
		t.Errorf("exit %d", code)
	}
}

func createRuntimeClass(ctx context.Context, t *testing.T, cs kube.Interface) {
	t.Helper()
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "nvidia"}, Handler: "nvidia"}
	if _, err := cs.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// resetStep5 removes what step 5 makes and any GPUs a earlier walk put on
// the lab nodes (with GPUs the pod would schedule).
func resetStep5(ctx context.Context, t *testing.T, cs kube.Interface) {
	t.Helper()
	if err := cs.CoreV1().Namespaces().Delete(ctx, "gpu-lab", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if err := cs.NodeV1().RuntimeClasses().Delete(ctx, "nvidia", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range lab.WatchedNodes() {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, c := n.Status.Capacity[gpuResource]
		_, a := n.Status.Allocatable[gpuResource]
		if !c && !a {
			continue
		}
		delete(n.Status.Capacity, gpuResource)
		delete(n.Status.Allocatable, gpuResource)
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "gpu-lab to be gone", func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "gpu-lab", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
