package e2e

// The reference run: a learner's walk through all eight steps against the
// sandbox cluster, with the engine running in-process on the real sources
// (file watcher, script prober, cluster informers) and a trace recorder as
// its tap. scripts/record-reference.sh runs it and embeds the result; the
// test does nothing unless LABMATE_RECORD_REFERENCE names the output file.
//
// Helpers here are prefixed "ref" so they cannot collide with the walk
// helpers of the other e2e tests in this package.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
	"github.com/labhub/labmate/observe/files"
	"github.com/labhub/labmate/observe/scriptprobe"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
	"github.com/labhub/labmate/trace"
)

// EnvRecordReference names the file TestRecordReference writes.
const EnvRecordReference = "LABMATE_RECORD_REFERENCE"

const (
	refGPU       = corev1.ResourceName("nvidia.com/gpu")
	refLabNS     = "gpu-lab"
	refOpNS      = "gpu-operator"
	refToolkit   = "nvidia-container-toolkit"
	refOldImage  = "nvcr.io/nvidia/k8s/container-toolkit:v1.16.2"
	refNewImage  = "nvcr.io/nvidia/k8s/container-toolkit:v1.17.0"
	refStepLimit = 90 * time.Second
	// refPace is the pause after each step turns green, so the replay at
	// 1x gives a newcomer time to see each change.
	refPace = 3 * time.Second
)

func TestRecordReference(t *testing.T) {
	out := os.Getenv(EnvRecordReference)
	if out == "" {
		t.Skipf("set %s=FILE (and %s=1) to record the reference run; scripts/record-reference.sh does both", EnvRecordReference, sandboxtest.EnvE2E)
	}
	kubeconfig := sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	sandboxtest.LockLab(t) // the walk in walk_test.go changes the same objects
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	lab, err := content.Load(content.DefaultLabID)
	if err != nil {
		t.Fatal(err)
	}
	steps := gpuSteps(t)
	refAnswers := filepath.Join("..", "content", "labs", lab.ID, "reference")
	root := t.TempDir()

	refResetCluster(ctx, t, cs)

	tmp := out + ".partial"
	// The header names the lab's default root, the path the step texts
	// show a newcomer; the files were really written under a temp dir.
	rec, err := trace.Create(tmp, trace.Header{Lab: lab.ID, Root: lab.DefaultRoot, Labmate: "reference"})
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(engine.Config{Lab: lab, Steps: steps, Root: lab.DefaultRoot, Tap: rec.Record})
	// What the lab's cluster checks read (checks.ClusterScope, as cmd
	// wires it): the lab namespaces and the three nodes.
	csrc, err := cluster.New(cluster.Options{Kubeconfig: kubeconfig, Context: sandbox.Context(sandboxtest.Options()),
		Namespaces: []string{refLabNS, refOpNS}, Nodes: sandboxtest.Options().NodeNames()})
	if err != nil {
		t.Fatal(err)
	}
	sources := []observe.Source{
		files.New(files.Options{Root: root, Paths: e.Files()}),
		scriptprobe.New(root, e.Probes(), scriptprobe.Options{}),
		csrc,
	}
	reports, stop := e.Start(ctx, sources)
	w := &refWalk{t: t, ctx: ctx, cs: cs, root: root, answers: refAnswers, reports: reports}
	w.waitReady()

	// Steps 1-4: files only.
	w.copyAnswer("etc/containerd/config.toml", 0o644)
	w.passed(1)
	w.copyAnswer("etc/containerd/conf.d/99-nvidia.toml", 0o644)
	w.passed(2)
	w.copyAnswer("out/merge.txt", 0o644)
	w.passed(3)
	w.copyAnswer("bin/check-runtime.sh", 0o755)
	w.passed(4)

	// Step 5: RuntimeClass and a GPU pod that cannot be scheduled.
	w.copyAnswer("k8s/runtimeclass.yaml", 0o644)
	w.copyAnswer("k8s/gpu-pod.yaml", 0o644)
	w.createNamespace(refLabNS)
	var rc nodev1.RuntimeClass
	w.readYAML("k8s/runtimeclass.yaml", &rc)
	w.check(cs.NodeV1().RuntimeClasses().Create(ctx, &rc, metav1.CreateOptions{}))
	var pod corev1.Pod
	w.readYAML("k8s/gpu-pod.yaml", &pod)
	w.check(cs.CoreV1().Pods(refLabNS).Create(ctx, &pod, metav1.CreateOptions{}))
	cond := w.unschedulable()
	w.write("out/unscheduled.txt", cond.Reason+"\n"+cond.Message+"\n", 0o644)
	w.passed(5)

	// Step 6: lab-node-0 advertises four GPUs; the pod runs there.
	w.patchNodeGPU("lab-node-0", "4")
	w.podRunning(refLabNS, pod.Name, "lab-node-0")
	w.write("out/node-gpu.txt", w.nodeTable(), 0o644)
	w.passed(6)

	// Step 7: time-slicing, five replicas, lab-node-1 advertises twenty.
	w.copyAnswer("k8s/time-slicing.yaml", 0o644)
	w.createNamespace(refOpNS)
	var cm corev1.ConfigMap
	w.readYAML("k8s/time-slicing.yaml", &cm)
	w.check(cs.CoreV1().ConfigMaps(refOpNS).Create(ctx, &cm, metav1.CreateOptions{}))
	w.patchNodeGPU("lab-node-1", "20")
	w.copyAnswer("out/slots.txt", 0o644)
	w.passed(7)

	// Step 8: the toolkit rolls out on v1.16.2, then an update that asks
	// for 64Gi stalls on nodes with 32Gi.
	w.copyAnswer("k8s/toolkit-ds.yaml", 0o644)
	var ds appsv1.DaemonSet
	w.readYAML("k8s/toolkit-ds.yaml", &ds)
	w.check(cs.AppsV1().DaemonSets(refOpNS).Create(ctx, &ds, metav1.CreateOptions{}))
	w.dsSettled(func(s appsv1.DaemonSetStatus) bool {
		return s.DesiredNumberScheduled == 3 && s.UpdatedNumberScheduled == 3 && s.NumberReady == 3
	})
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"toolkit","image":%q,"resources":{"requests":{"memory":"64Gi"}}}]}}}}`, refNewImage)
	w.check(cs.AppsV1().DaemonSets(refOpNS).Patch(ctx, refToolkit, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}))
	final := w.dsSettled(func(s appsv1.DaemonSetStatus) bool {
		return s.UpdatedNumberScheduled >= 1 && s.UpdatedNumberScheduled < s.DesiredNumberScheduled && s.NumberReady < s.DesiredNumberScheduled
	})
	w.write("out/rollout.txt", w.rolloutReport(final), 0o644)
	w.passed(8)

	stop()
	if err := rec.Close(); err != nil || rec.Err() != nil {
		t.Fatalf("recorder: %v %v", err, rec.Err())
	}

	// Only a trace that replays to all eight steps, in order, replaces
	// the reference.
	tr, err := trace.Open(tmp, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, changes, err := trace.FinalReport(ctx, lab, steps, tr)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.AllPassed() || !reflect.DeepEqual(trace.FirstPassed(changes), []int{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Fatalf("the recorded trace does not replay to the walk: first passed %v, final %v", trace.FirstPassed(changes), refStatuses(rep))
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	t.Logf("reference run: %d records over %v, written to %s", len(tr.Records), tr.Duration(), out)
}

func refStatuses(rep engine.Report) string {
	var b strings.Builder
	for _, st := range rep.Steps {
		fmt.Fprintf(&b, "%d=%s ", st.Number, st.Status)
	}
	return b.String()
}

// refDescribe lists every step that did not pass, with its checks.
func refDescribe(rep engine.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster %+v, problems %v\n", rep.Cluster, rep.Problems)
	for _, st := range rep.Steps {
		if st.Status == checks.Passed {
			continue
		}
		fmt.Fprintf(&b, "step %d %s:\n", st.Number, st.Status)
		for _, c := range st.Checks {
			fmt.Fprintf(&b, "  [%s] %s: %s\n", c.Status, c.ID, c.Message)
		}
	}
	return b.String()
}

// refWalk is the learner: it writes files, changes the cluster, and waits
// for labmate's verdicts.
type refWalk struct {
	t       *testing.T
	ctx     context.Context
	cs      kubernetes.Interface
	root    string
	answers string
	reports <-chan engine.Report
	last    engine.Report
}

func (w *refWalk) check(_ any, err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatal(err)
	}
}

func (w *refWalk) write(rel, body string, mode os.FileMode) {
	w.t.Helper()
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		w.t.Fatal(err)
	}
}

func (w *refWalk) copyAnswer(rel string, mode os.FileMode) {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.answers, filepath.FromSlash(rel)))
	if err != nil {
		w.t.Fatal(err)
	}
	w.write(rel, string(b), mode)
}

func (w *refWalk) readYAML(rel string, into any) {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel)))
	if err != nil {
		w.t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, into); err != nil {
		w.t.Fatalf("%s: %v", rel, err)
	}
}

// until polls cond every 200ms until it holds or the step limit passes.
func (w *refWalk) until(what string, cond func() bool) {
	w.t.Helper()
	deadline := time.Now().Add(refStepLimit)
	for !cond() {
		if time.Now().After(deadline) {
			w.t.Fatalf("waited %v for %s; labmate's last report:\n%s", refStepLimit, what, refDescribe(w.last))
		}
		select {
		case <-w.ctx.Done():
			w.t.Fatal(w.ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// next takes the newest report, waiting at most d for one.
func (w *refWalk) next(d time.Duration) {
	select {
	case w.last = <-w.reports:
	case <-time.After(d):
	}
}

func (w *refWalk) waitReady() {
	w.t.Helper()
	w.until("every source's initial state", func() bool { w.next(time.Second); return w.last.Ready })
	if w.last.Cluster.State != observe.ClusterSynced {
		w.t.Fatalf("cluster source: %+v", w.last.Cluster)
	}
}

// passed waits until step n passes with every earlier step still passed.
func (w *refWalk) passed(n int) {
	w.t.Helper()
	w.until(fmt.Sprintf("step %d to pass", n), func() bool {
		w.next(time.Second)
		for i := 1; i <= n; i++ {
			if st := w.last.Step(i); st == nil || st.Status != checks.Passed {
				return false
			}
		}
		return true
	})
	for _, st := range w.last.Steps {
		if st.Number > n && st.Status == checks.Passed {
			w.t.Fatalf("step %d passed before its turn", st.Number)
		}
	}
	w.t.Logf("step %d passed", n)
	time.Sleep(refPace)
}

func (w *refWalk) createNamespace(name string) {
	w.t.Helper()
	w.check(w.cs.CoreV1().Namespaces().Create(w.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}))
	w.until("the default service account in "+name, func() bool {
		_, err := w.cs.CoreV1().ServiceAccounts(name).Get(w.ctx, "default", metav1.GetOptions{})
		return err == nil
	})
}

func (w *refWalk) unschedulable() corev1.PodCondition {
	w.t.Helper()
	var got corev1.PodCondition
	w.until("the GPU pod to be Unschedulable", func() bool {
		p, err := w.cs.CoreV1().Pods(refLabNS).Get(w.ctx, "cuda-probe", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				got = c
				return true
			}
		}
		return false
	})
	return got
}

func (w *refWalk) patchNodeGPU(node, amount string) {
	w.t.Helper()
	p := fmt.Sprintf(`{"status":{"capacity":{%q:%q},"allocatable":{%q:%q}}}`, refGPU, amount, refGPU, amount)
	w.check(w.cs.CoreV1().Nodes().Patch(w.ctx, node, types.MergePatchType, []byte(p), metav1.PatchOptions{}, "status"))
}

func (w *refWalk) podRunning(ns, name, node string) {
	w.t.Helper()
	w.until(ns+"/"+name+" to run on "+node, func() bool {
		p, err := w.cs.CoreV1().Pods(ns).Get(w.ctx, name, metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == node && p.Status.Phase == corev1.PodRunning
	})
}

// nodeTable is what `kubectl get nodes -o
// custom-columns=NAME:.metadata.name,GPU:.status.allocatable.nvidia\.com/gpu`
// prints.
func (w *refWalk) nodeTable() string {
	w.t.Helper()
	nodes, err := w.cs.CoreV1().Nodes().List(w.ctx, metav1.ListOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tGPU")
	for _, n := range nodes.Items {
		gpu := "<none>"
		if q, ok := n.Status.Allocatable[refGPU]; ok {
			gpu = q.String()
		}
		fmt.Fprintf(tw, "%s\t%s\n", n.Name, gpu)
	}
	tw.Flush()
	return b.String()
}

// dsSettled waits until the toolkit DaemonSet's status, for its current
// generation, satisfies ok and stays so for two seconds.
func (w *refWalk) dsSettled(ok func(appsv1.DaemonSetStatus) bool) appsv1.DaemonSetStatus {
	w.t.Helper()
	var (
		st    appsv1.DaemonSetStatus
		since time.Time
	)
	w.until("the toolkit DaemonSet to settle", func() bool {
		ds, err := w.cs.AppsV1().DaemonSets(refOpNS).Get(w.ctx, refToolkit, metav1.GetOptions{})
		if err != nil || ds.Status.ObservedGeneration < ds.Generation || !ok(ds.Status) {
			since = time.Time{}
			return false
		}
		if since.IsZero() || !reflect.DeepEqual(st, ds.Status) {
			st, since = ds.Status, time.Now()
		}
		return time.Since(since) >= 2*time.Second
	})
	return st
}

// rolloutReport is out/rollout.txt from the live DaemonSet and its pods.
func (w *refWalk) rolloutReport(st appsv1.DaemonSetStatus) string {
	w.t.Helper()
	pods, err := w.cs.CoreV1().Pods(refOpNS).List(w.ctx, metav1.ListOptions{LabelSelector: "app=" + refToolkit})
	if err != nil {
		w.t.Fatal(err)
	}
	old := 0
	for _, p := range pods.Items {
		if len(p.Spec.Containers) > 0 && p.Spec.Containers[0].Image == refOldImage {
			old++
		}
	}
	return fmt.Sprintf("DESIRED=%d\nUPDATED=%d\nREADY=%d\nOLD_IMAGE_PODS=%d\nMAX_UNAVAILABLE=1\nBLOCKER=insufficient-memory\n",
		st.DesiredNumberScheduled, st.UpdatedNumberScheduled, st.NumberReady, old)
}

// refResetCluster removes what an earlier walk left: the lab namespaces,
// the RuntimeClass and the GPU amounts on the nodes.
func refResetCluster(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	for _, ns := range []string{refLabNS, refOpNS} {
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	if err := cs.NodeV1().RuntimeClasses().Delete(ctx, "nvidia", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if err := sandbox.Reset(ctx, cs, "gpu-incident", sandboxtest.Options().Nodes); err != nil {
		t.Fatal(err)
	}
	w := &refWalk{t: t, ctx: ctx, cs: cs}
	w.until("the lab namespaces to be gone", func() bool {
		for _, ns := range []string{refLabNS, refOpNS} {
			if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false
			}
		}
		return true
	})
}
