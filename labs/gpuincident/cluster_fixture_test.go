package gpuincident

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// The reference run's scheduler message (Kubernetes 1.34); tests build
// the live condition from it, checks never know it.
const refSchedMsg = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."

const memSchedMsg = "0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."

const clusterFixtures = "testdata/cluster"

// labCluster is the GPU lab as the companion would observe it: learner
// files and live objects, folded into a store, with the engine's memory
// of the past kept across snapshots.
type labCluster struct {
	t       *testing.T
	store   *observe.Store
	witness checks.Witness
	now     time.Time
}

func newLabCluster(t *testing.T) *labCluster {
	c := &labCluster{t: t, store: observe.NewStore(), witness: checks.Witness{}, now: time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)}
	c.state(observe.ClusterSynced, "")
	return c
}

func (c *labCluster) tick() time.Time {
	c.now = c.now.Add(time.Second)
	return c.now
}

func (c *labCluster) state(s observe.ClusterState, err string, refusals ...observe.Refusal) {
	c.store.Apply(observe.Observation{Time: c.tick(), Cluster: &observe.ClusterObs{State: s, Server: "https://127.0.0.1:6443", Err: err, Refusals: refusals}})
}

// file puts a fixture (path under testdata/cluster) at a lab path.
func (c *labCluster) file(rel, fixture string) {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(clusterFixtures, fixture))
	if err != nil {
		c.t.Fatal(err)
	}
	c.content(rel, b)
}

// content puts bytes at a lab path.
func (c *labCluster) content(rel string, b []byte) {
	c.store.Apply(observe.Observation{Time: c.tick(), File: &observe.FileObs{Path: rel, State: observe.FilePresent, Content: b, Size: int64(len(b)), Mode: 0o644}})
}

func (c *labCluster) removeFile(rel string) {
	c.store.Apply(observe.Observation{Time: c.tick(), File: &observe.FileObs{Path: rel, State: observe.FileMissing}})
}

func kindOf(obj runtime.Object) string {
	switch obj.(type) {
	case *corev1.Namespace:
		return "Namespace"
	case *corev1.Node:
		return "Node"
	case *corev1.Pod:
		return "Pod"
	case *corev1.Event:
		return "Event"
	case *corev1.ConfigMap:
		return "ConfigMap"
	case *nodev1.RuntimeClass:
		return "RuntimeClass"
	case *appsv1.DaemonSet:
		return "DaemonSet"
	}
	panic(fmt.Sprintf("kind of %T", obj))
}

// put applies live objects as the cluster source would.
func (c *labCluster) put(objs ...runtime.Object) {
	for _, o := range objs {
		m := o.(metav1.Object)
		c.store.Apply(observe.Observation{Time: c.tick(), Object: &observe.ObjectObs{
			Op: observe.OpUpsert, Kind: kindOf(o), Namespace: m.GetNamespace(), Name: m.GetName(), Object: o}})
	}
}

func (c *labCluster) del(kind, ns, name string) {
	c.store.Apply(observe.Observation{Time: c.tick(), Object: &observe.ObjectObs{Op: observe.OpDelete, Kind: kind, Namespace: ns, Name: name}})
}

// eval evaluates a step the way the engine does: every step remembers
// first, then the step decides.
func (c *labCluster) eval(s checks.Step) checks.StepEval {
	c.t.Helper()
	snap := c.store.Snapshot()
	for _, st := range steps() {
		if st.Remember != nil {
			st.Remember(snap, &c.witness, true)
		}
	}
	ev := s.Eval(checks.Input{Lab: text(), Snap: snap, Root: "/root/gpuop", Witness: &c.witness})
	assertWellFormed(c.t, ev)
	assertNoRawClusterKeys(c.t, ev)
	return ev
}

var reRawClusterKey = regexp.MustCompile(`\bcluster\.[a-z_]+\.[a-z_.]+`)

func assertNoRawClusterKeys(t *testing.T, ev checks.StepEval) {
	t.Helper()
	for _, r := range ev.Checks {
		if reRawClusterKey.MatchString(r.Message + r.Expected + r.Observed) {
			t.Errorf("%s: message key leaked: %q", r.ID, r.Message)
		}
	}
	for _, f := range ev.Observed {
		if reRawClusterKey.MatchString(f.Label + f.Value) {
			t.Errorf("message key leaked in fact %+v", f)
		}
	}
}

// status returns a step's aggregated status.
func (c *labCluster) status(s checks.Step) checks.Status { return checks.Aggregate(c.eval(s).Checks) }

// Objects of the lab, built the way the API server would return them.

func uid(s string) types.UID { return types.UID(s) }

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("ns-" + name)}}
}

func labNode(name, gpu string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("node-" + name),
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}}}
	rl := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("16"),
		corev1.ResourceMemory: resource.MustParse("32Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	if gpu != "" {
		rl[gpuResource] = resource.MustParse(gpu)
	}
	n.Status.Capacity = rl.DeepCopy()
	n.Status.Allocatable = rl.DeepCopy()
	return n
}

func nvidiaRuntimeClass(handler string) *nodev1.RuntimeClass {
	return &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "nvidia", UID: uid("rc")}, Handler: handler}
}

// gpuPod is cuda-probe as applied from the reference file.
func gpuPod(u string) *corev1.Pod {
	rcn := "nvidia"
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-lab", Name: "cuda-probe", UID: uid(u)},
		Spec: corev1.PodSpec{
			RuntimeClassName: &rcn,
			Containers: []corev1.Container{{Name: "cuda", Image: "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{gpuResource: resource.MustParse("1")},
					Requests: corev1.ResourceList{gpuResource: resource.MustParse("1")},
				}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func unschedulable(p *corev1.Pod, message string) *corev1.Pod {
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: message}}
	return p
}

func running(p *corev1.Pod, node string) *corev1.Pod {
	p.Spec.NodeName = node
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue},
	}
	return p
}

// boundAfter stamps a pod as the API server would: created at created,
// and bound (PodScheduled turned True) after wait.
func boundAfter(p *corev1.Pod, created time.Time, wait time.Duration) *corev1.Pod {
	p.CreationTimestamp = metav1.NewTime(created)
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			p.Status.Conditions[i].LastTransitionTime = metav1.NewTime(created.Add(wait))
		}
	}
	return p
}

func failedScheduling(p *corev1.Pod, name, message string, at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: p.Namespace, Name: name, UID: uid("ev-" + name)},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID},
		Reason:         "FailedScheduling", Message: message, Type: "Warning",
		EventTime: metav1.NewMicroTime(at),
	}
}

func timeSlicingConfigMap(t *testing.T, fixture string) *corev1.ConfigMap {
	t.Helper()
	var cm corev1.ConfigMap
	b, err := os.ReadFile(filepath.Join(clusterFixtures, fixture))
	if err != nil {
		t.Fatal(err)
	}
	if prob := checks.DecodeYAMLStrict(string(b), nil, &cm); prob != nil {
		t.Fatalf("%s: %+v", fixture, prob)
	}
	cm.UID = uid("cm")
	return &cm
}

func toolkitDaemonSet(u, image, memory string, generation int64) *appsv1.DaemonSet {
	mu := intstr.FromInt32(1)
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "nvidia-container-toolkit", UID: uid(u), Generation: generation},
		Spec: appsv1.DaemonSetSpec{
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu}},
			Template: corev1.PodTemplateSpec{Spec: toolkitPodSpec(image, memory)},
		},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: generation},
	}
}

func toolkitPodSpec(image, memory string) corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "toolkit", Image: image,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}}}}}
}

func withStatus(ds *appsv1.DaemonSet, desired, current, updated, ready int32) *appsv1.DaemonSet {
	ds.Status.DesiredNumberScheduled = desired
	ds.Status.CurrentNumberScheduled = current
	ds.Status.UpdatedNumberScheduled = updated
	ds.Status.NumberReady = ready
	ds.Status.NumberAvailable = ready
	ds.Status.NumberUnavailable = desired - ready
	return ds
}

// toolkitPod is a pod the DaemonSet owns on a node: Ready, or (schedMsg
// set) Pending as Unschedulable with node affinity to its node.
func toolkitPod(ds *appsv1.DaemonSet, node, image, memory, schedMsg string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "nvidia-container-toolkit-" + node + "-" + imageTag(image),
			UID:             uid("tk-" + node + "-" + imageTag(image)),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID}}},
		Spec: toolkitPodSpec(image, memory),
	}
	if schedMsg != "" {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
		return unschedulable(p, schedMsg)
	}
	return running(p, node)
}

// The reference run, stage by stage: after stage n, steps 1..n are done.

func (c *labCluster) stage5() *corev1.Pod {
	for _, n := range labNodes {
		c.put(labNode(n, ""))
	}
	c.file(runtimeClassPath, "right/k8s/runtimeclass.yaml")
	c.file(gpuPodPath, "right/k8s/gpu-pod.yaml")
	c.put(namespace("gpu-lab"), nvidiaRuntimeClass("nvidia"))
	pod := unschedulable(gpuPod("pod-1"), refSchedMsg)
	c.put(pod, failedScheduling(pod, "cuda-probe.1", refSchedMsg, c.now))
	c.file(unscheduledPath, "right/out/unscheduled.txt")
	return pod
}

func (c *labCluster) stage6() {
	c.put(labNode("lab-node-0", "4"))
	c.put(running(gpuPod("pod-1"), "lab-node-0"))
	c.file(nodeGPUPath, "right/out/node-gpu.txt")
}

func (c *labCluster) stage7() {
	c.file(timeSlicingPath, "right/k8s/time-slicing.yaml")
	c.put(namespace("gpu-operator"), timeSlicingConfigMap(c.t, "right/k8s/time-slicing.yaml"))
	c.put(labNode("lab-node-1", "20"))
	c.file(slotsPath, "right/out/slots.txt")
}

// stage8Ready applies the DaemonSet and lets all three pods become Ready.
func (c *labCluster) stage8Ready() *appsv1.DaemonSet {
	c.file(toolkitDSPath, "right/k8s/toolkit-ds.yaml")
	ds := withStatus(toolkitDaemonSet("ds-1", oldImage, oldMemory, 1), 3, 3, 3, 3)
	c.put(ds)
	for _, n := range labNodes {
		c.put(toolkitPod(ds, n, oldImage, oldMemory, ""))
	}
	return ds
}

// stage8Update updates image and memory: the controller replaces the pod
// on lab-node-0 and the new one cannot fit.
func (c *labCluster) stage8Update() *appsv1.DaemonSet {
	ds := withStatus(toolkitDaemonSet("ds-1", newImage, newMemory, 2), 3, 3, 1, 2)
	c.put(ds)
	old := toolkitPod(ds, "lab-node-0", oldImage, oldMemory, "")
	c.del("Pod", "gpu-operator", old.Name)
	c.put(toolkitPod(ds, "lab-node-0", newImage, newMemory, memSchedMsg))
	c.file(rolloutPath, "right/out/rollout.txt")
	return ds
}

// allStages runs the whole reference run.
func (c *labCluster) allStages() {
	c.stage5()
	c.eval(stepRuntimeClassPending)
	c.stage6()
	c.stage7()
	c.stage8Ready()
	c.eval(stepRolloutStall)
	c.stage8Update()
}
