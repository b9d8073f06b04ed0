package e2e

// The learner's walk: all eight steps against the sandbox cluster, with
// the real `labmate check --json` asked after every action, and the wrong
// turns the issue lists taken (and corrected) on the way.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

func TestLearnerWalk(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	sandboxtest.LockLab(t)
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()

	l := &learner{
		refWalk: &refWalk{t: t, ctx: ctx, cs: cs, root: t.TempDir(),
			answers: filepath.Join("..", "content", "labs", "gpu-incident", "reference")},
		bin: buildLabmate(t), stateDir: t.TempDir(),
		kubeconfig: kubeconfig, kubeCtx: sandbox.Context(sandboxtest.Options()),
	}
	refResetCluster(ctx, t, cs)
	t.Cleanup(func() { refResetCluster(context.Background(), t, cs) })

	if rep := l.notYet(1, "empty lab"); rep.Cluster.State != observe.ClusterSynced {
		t.Fatalf("cluster %+v: the walk needs a synced cluster", rep.Cluster)
	}

	// Steps 1-4: the learner's files.
	l.copyAnswer("etc/containerd/config.toml", 0o644)
	l.green(1)
	l.copyAnswer("etc/containerd/conf.d/99-nvidia.toml", 0o644)
	l.green(2)
	l.copyAnswer("out/merge.txt", 0o644)
	l.green(3)
	l.copyAnswer("bin/check-runtime.sh", 0o755)
	l.green(4)

	l.step5()
	l.step6()
	l.step7()
	l.step8()

	if rep := l.ask(); !rep.AllPassed() {
		t.Errorf("not all eight steps green at the end")
	}
	t.Logf("walk done in %s with %d runs of labmate check", time.Since(begin).Round(time.Second), l.asked)
}

// step5: RuntimeClass and a GPU pod that stays Pending.
func (l *learner) step5() {
	cs, ctx := l.cs, l.ctx
	// Wrong turn: a RuntimeClass whose handler is not the runtime's name.
	l.write("k8s/runtimeclass.yaml", strings.Replace(l.answer("k8s/runtimeclass.yaml"), "handler: nvidia", "handler: runc", 1), 0o644)
	l.notYet(5, "RuntimeClass file written")
	l.createNamespace(refLabNS)
	l.notYet(5, "namespace created")
	var rc nodev1.RuntimeClass
	l.readYAML("k8s/runtimeclass.yaml", &rc)
	l.check(cs.NodeV1().RuntimeClasses().Create(ctx, &rc, metav1.CreateOptions{}))
	l.wrongTurn(5, "runtimeclass-pending.rc-fields", "handler", "runc")
	l.wrongTurn(5, "runtimeclass-pending.rc-live", "handler 가 runc")
	// The handler cannot change: delete and recreate from the fixed file.
	l.copyAnswer("k8s/runtimeclass.yaml", 0o644)
	l.check(nil, cs.NodeV1().RuntimeClasses().Delete(ctx, "nvidia", metav1.DeleteOptions{}))
	rc = nodev1.RuntimeClass{}
	l.readYAML("k8s/runtimeclass.yaml", &rc)
	l.recreate("RuntimeClass nvidia", func() error {
		_, err := cs.NodeV1().RuntimeClasses().Create(ctx, &rc, metav1.CreateOptions{})
		return err
	})
	l.notYet(5, "RuntimeClass fixed")

	// Wrong turn: a pod that never names the RuntimeClass.
	var pod corev1.Pod
	l.write("k8s/gpu-pod.yaml", strings.Replace(l.answer("k8s/gpu-pod.yaml"), "  runtimeClassName: nvidia\n", "", 1), 0o644)
	l.readYAML("k8s/gpu-pod.yaml", &pod)
	l.check(cs.CoreV1().Pods(refLabNS).Create(ctx, &pod, metav1.CreateOptions{}))
	l.unschedulable()
	l.wrongTurn(5, "runtimeclass-pending.pod-fields", "spec.runtimeClassName")
	l.wrongTurn(5, "runtimeclass-pending.pod-live", "runtimeClassName")
	// A pod's spec cannot change: delete it and apply the fixed file.
	l.copyAnswer("k8s/gpu-pod.yaml", 0o644)
	l.check(nil, cs.CoreV1().Pods(refLabNS).Delete(ctx, "cuda-probe", metav1.DeleteOptions{}))
	pod = corev1.Pod{}
	l.readYAML("k8s/gpu-pod.yaml", &pod)
	l.recreate("pod cuda-probe", func() error {
		_, err := cs.CoreV1().Pods(refLabNS).Create(ctx, &pod, metav1.CreateOptions{})
		return err
	})
	cond := l.unschedulable()
	l.notYet(5, "pod Pending, unscheduled.txt not written")

	// Wrong turn: the scheduler's message in the learner's words.
	l.write("out/unscheduled.txt", "Unschedulable\nno node has a free nvidia.com/gpu\n", 0o644)
	l.wrongTurn(5, "runtimeclass-pending.unscheduled-live", "다릅니다", "no node has a free nvidia.com/gpu", cond.Message)
	l.write("out/unscheduled.txt", cond.Reason+"\n"+cond.Message+"\n", 0o644)
	l.green(5)
}

// recreate creates an object again once its deleted predecessor is gone.
func (l *learner) recreate(what string, create func() error) {
	l.t.Helper()
	var err error
	l.until(what+" to be created again", func() bool {
		err = create()
		return err == nil || !apierrors.IsAlreadyExists(err)
	})
	l.check(nil, err)
}

// step6: lab-node-0 advertises four GPUs and the pod runs there.
func (l *learner) step6() {
	l.patchNodeGPU("lab-node-0", "4")
	l.podRunning(refLabNS, "cuda-probe", "lab-node-0")
	l.notYet(6, "pod Running, table not written")
	table := l.nodeTable()
	// Wrong turn: a node missing from the table.
	var kept []string
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "lab-node-2") {
			kept = append(kept, line)
		}
	}
	l.write("out/node-gpu.txt", strings.Join(kept, "\n"), 0o644)
	l.wrongTurn(6, "advertise-gpu.table-file", "lab-node-2 줄이 없습니다")
	l.write("out/node-gpu.txt", table, 0o644)
	l.green(6)
}

// step7: the time-slicing ConfigMap, lab-node-1 at twenty, the slot table.
func (l *learner) step7() {
	l.copyAnswer("k8s/time-slicing.yaml", 0o644)
	l.createNamespace(refOpNS)
	var cm corev1.ConfigMap
	l.readYAML("k8s/time-slicing.yaml", &cm)
	l.check(l.cs.CoreV1().ConfigMaps(refOpNS).Create(l.ctx, &cm, metav1.CreateOptions{}))
	l.notYet(7, "ConfigMap applied")
	l.patchNodeGPU("lab-node-1", "20")
	l.notYet(7, "lab-node-1 raised, slots.txt not written")
	// Wrong turn: memory divided among the slots.
	l.write("out/slots.txt", strings.Replace(l.answer("out/slots.txt"), "VRAM_GUARANTEED_PER_SLOT_GIB=0", "VRAM_GUARANTEED_PER_SLOT_GIB=8", 1), 0o644)
	l.wrongTurn(7, "time-slicing.slots-values", "VRAM_GUARANTEED_PER_SLOT_GIB=8")
	l.copyAnswer("out/slots.txt", 0o644)
	l.green(7)
}

// step8: the toolkit DaemonSet Ready on v1.16.2, then an update that
// stalls on memory.
func (l *learner) step8() {
	cs, ctx := l.cs, l.ctx
	allReady := func(s appsv1.DaemonSetStatus) bool {
		return s.DesiredNumberScheduled == 3 && s.UpdatedNumberScheduled == 3 && s.NumberReady == 3
	}
	l.copyAnswer("k8s/toolkit-ds.yaml", 0o644)
	l.applyToolkit()
	l.dsSettled(allReady)
	rep := l.notYet(8, "toolkit Ready on v1.16.2")
	if r := resultOf(rep.Step(8).Checks, "rollout-stall.was-ready"); r.Status != checks.Passed {
		l.t.Errorf("was-ready with three Ready pods: %s %s", r.Status, r.Message)
	}

	// Wrong turn: only the image changes; every node has room, so the
	// rollout completes instead of stalling.
	l.patchToolkit(`{"spec":{"template":{"spec":{"containers":[{"name":"toolkit","image":"` + refNewImage + `"}]}}}}`)
	l.dsSettled(allReady)
	l.wrongTurn(8, "rollout-stall.stalled", "끝까지", "128Mi", "64Gi")

	// Start over: delete the DaemonSet and apply the file again.
	l.check(nil, cs.AppsV1().DaemonSets(refOpNS).Delete(ctx, refToolkit, metav1.DeleteOptions{}))
	l.until("the old toolkit and its pods to go", func() bool {
		_, err := cs.AppsV1().DaemonSets(refOpNS).Get(ctx, refToolkit, metav1.GetOptions{})
		pods, lerr := cs.CoreV1().Pods(refOpNS).List(ctx, metav1.ListOptions{LabelSelector: "app=" + refToolkit})
		return apierrors.IsNotFound(err) && lerr == nil && len(pods.Items) == 0
	})
	l.applyToolkit()
	l.dsSettled(allReady)
	l.notYet(8, "toolkit recreated and Ready on v1.16.2")

	l.patchToolkit(`{"spec":{"template":{"spec":{"containers":[{"name":"toolkit","image":"` + refNewImage + `","resources":{"requests":{"memory":"64Gi"}}}]}}}}`)
	final := l.dsSettled(func(s appsv1.DaemonSetStatus) bool {
		return s.UpdatedNumberScheduled >= 1 && s.UpdatedNumberScheduled < s.DesiredNumberScheduled && s.NumberReady < s.DesiredNumberScheduled
	})
	l.notYet(8, "rollout stalled, rollout.txt not written")
	report := l.rolloutReport(final)
	// Wrong turn: READY counted as if nothing had stopped.
	l.write("out/rollout.txt", strings.Replace(report, fmt.Sprintf("READY=%d", final.NumberReady), "READY=3", 1), 0o644)
	l.wrongTurn(8, "rollout-stall.report-live", "READY=3", "numberReady")
	l.write("out/rollout.txt", report, 0o644)
	l.green(8)
	// labmate saw the recreated DaemonSet Ready on v1.16.2 in an earlier
	// run and kept it in its state file: evidence, not inference.
	if r := resultOf(l.last.Step(8).Checks, "rollout-stall.was-ready"); !strings.Contains(r.Message, "labmate 가") {
		l.t.Errorf("was-ready does not rest on what labmate saw: %s", r.Message)
	}
}

func (l *learner) applyToolkit() {
	var ds appsv1.DaemonSet
	l.readYAML("k8s/toolkit-ds.yaml", &ds)
	l.check(l.cs.AppsV1().DaemonSets(refOpNS).Create(l.ctx, &ds, metav1.CreateOptions{}))
}

// patchToolkit is `kubectl patch ds` with a strategic merge patch.
func (l *learner) patchToolkit(patch string) {
	l.check(l.cs.AppsV1().DaemonSets(refOpNS).Patch(l.ctx, refToolkit, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}))
}
