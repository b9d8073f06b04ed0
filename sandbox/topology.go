package sandbox

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// A labmate sandbox carries a marker, a ConfigMap in kube-system, saying
// labmate made it and for which lab. Up refuses a cluster made for another
// lab, and `labmate lab verify` writes only to a cluster that has one.
const (
	MarkerNamespace = metav1.NamespaceSystem
	MarkerName      = "labmate-sandbox"
	markerLabKey    = "lab"
)

// baseLabels are what every fake node carries, whatever its lab adds.
func baseLabels(name string) map[string]string {
	return map[string]string{
		KwokNodeLabel:                   "kwok",
		"kubernetes.io/hostname":        name,
		"kubernetes.io/os":              "linux",
		"kubernetes.io/arch":            "amd64",
		"kubernetes.io/role":            "agent",
		"node-role.kubernetes.io/agent": "",
	}
}

// Node builds the fake node object of a NodeSpec.
func Node(spec NodeSpec) *corev1.Node {
	labels := baseLabels(spec.Name)
	maps.Copy(labels, spec.Labels)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: spec.Name,
			Annotations: map[string]string{
				KwokNodeAnnotation:             "fake",
				"node.alpha.kubernetes.io/ttl": "0",
			},
			Labels: labels,
		},
		Spec: corev1.NodeSpec{Taints: slices.Clone(spec.Taints)},
		Status: corev1.NodeStatus{
			Capacity:    spec.Capacity.DeepCopy(),
			Allocatable: spec.Capacity.DeepCopy(),
			NodeInfo: corev1.NodeSystemInfo{
				OperatingSystem: "linux",
				Architecture:    "amd64",
			},
		},
	}
}

// capacityText words a node's capacity for progress lines
// ("cpu 16, memory 32Gi, pods 110").
func capacityText(rl corev1.ResourceList) string {
	names := make([]string, 0, len(rl))
	for k := range rl {
		names = append(names, string(k))
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		q := rl[corev1.ResourceName(n)]
		parts[i] = n + " " + q.String()
	}
	return strings.Join(parts, ", ")
}

func ensureNodes(ctx context.Context, opts Options, cs kube.Interface) error {
	created := 0
	for _, spec := range opts.Nodes {
		_, err := cs.CoreV1().Nodes().Get(ctx, spec.Name, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return wrapMsg(err, "sandbox.err.get_node", "node", spec.Name)
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, Node(spec), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return wrapMsg(err, "sandbox.err.create_node", "node", spec.Name)
		}
		created++
	}
	if created > 0 {
		opts.progress("sandbox.up.nodes_created", "count", created, "annotation", KwokNodeAnnotation)
	}
	return nil
}

// OtherLabError is Up's refusal of a sandbox made for another lab.
type OtherLabError struct{ Name, Have, Want string }

func (e *OtherLabError) Error() string {
	return content.Msg("sandbox.other_lab", "name", e.Name, "have", e.Have, "want", e.Want)
}

// claim records opts.Lab in the marker, refusing a sandbox already made
// for another lab (its objects are the learner's work on that lab). fresh
// is true when the sandbox became the lab's just now: its start objects
// are applied then, never over a learner's progress.
func claim(ctx context.Context, opts Options, cs kube.Interface) (fresh bool, err error) {
	cm, err := cs.CoreV1().ConfigMaps(MarkerNamespace).Get(ctx, MarkerName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: MarkerNamespace, Name: MarkerName},
			Data: map[string]string{markerLabKey: opts.Lab}}
		if _, err := cs.CoreV1().ConfigMaps(MarkerNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, wrapMsg(err, "sandbox.err.marker")
		}
		return opts.Lab != "", nil
	case err != nil:
		return false, wrapMsg(err, "sandbox.err.marker")
	}
	have := cm.Data[markerLabKey]
	if have == opts.Lab || opts.Lab == "" {
		return false, nil
	}
	if have != "" {
		return false, &OtherLabError{Name: opts.Name, Have: have, Want: opts.Lab}
	}
	return true, setMarker(ctx, cs, opts.Lab)
}

func setMarker(ctx context.Context, cs kube.Interface, lab string) error {
	cm, err := cs.CoreV1().ConfigMaps(MarkerNamespace).Get(ctx, MarkerName, metav1.GetOptions{})
	if err != nil {
		return wrapMsg(err, "sandbox.err.marker")
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[markerLabKey] = lab
	if _, err := cs.CoreV1().ConfigMaps(MarkerNamespace).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return wrapMsg(err, "sandbox.err.marker")
	}
	return nil
}

// ErrNotSandbox is Identify's answer for a cluster labmate did not make.
var ErrNotSandbox error = msgError("sandbox.not_sandbox")

// Identify tells whether cfg points at a labmate sandbox: its API server
// on a loopback address and its marker present. It returns the lab the
// sandbox was made for. Anything else is ErrNotSandbox (wrapped): labmate
// never writes to a cluster that is not its own sandbox.
func Identify(ctx context.Context, conn kube.Conn) (lab string, err error) {
	u, err := url.Parse(conn.Host())
	if err != nil {
		return "", ErrNotSandbox
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); !(host == "localhost" || ip != nil && ip.IsLoopback()) {
		return "", ErrNotSandbox
	}
	cs, err := conn.Typed()
	if err != nil {
		return "", err
	}
	cm, err := cs.CoreV1().ConfigMaps(MarkerNamespace).Get(ctx, MarkerName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
		return "", ErrNotSandbox
	}
	if err != nil {
		return "", err
	}
	return cm.Data[markerLabKey], nil
}

// ResetTimeout bounds Reset: a sandbox whose namespaces never go or whose
// nodes never turn Ready is an error, never a wait without end.
const ResetTimeout = 2 * time.Minute

// Start is what Reset brings a sandbox back to: a lab's start.
type Start struct {
	// Lab is what the marker names afterwards ("" for no lab).
	Lab string
	// Namespaces are deleted, their pods first and at once (a namespace
	// waits for its pods, and kwok would take each one's grace period),
	// and waited for until they are gone.
	Namespaces []string
	// Nodes are the topology: fake nodes of no spec deleted (their pods
	// with them), missing ones created, labels, taints, capacity and
	// allocatable of the others restored, all waited for until Ready.
	Nodes []NodeSpec
	// Wipe are cluster-scoped resources every object of which is deleted
	// (the cluster-wide objects a lab's learner creates: RuntimeClasses,
	// PriorityClasses, a custom resource's objects), as "group/version/
	// resource" paths of the API.
	Wipe []schema.GroupVersionResource
	// Manifests are applied last, once the namespaces are gone and the
	// nodes Ready (ManifestsOf).
	Manifests []Manifest
}

// Reset brings a sandbox back to a lab's start, for a lab's proof
// (`labmate lab verify`) and the e2e tests: the start's namespaces gone,
// every object of the Wipe resources deleted, the nodes exactly the
// topology, the marker naming the lab, the start objects applied. Call it
// only on a cluster Identify accepted. It gives up after ResetTimeout.
func Reset(ctx context.Context, conn kube.Conn, st Start) error {
	ctx, cancel := context.WithTimeout(ctx, ResetTimeout)
	defer cancel()
	cs, err := conn.Typed()
	if err != nil {
		return err
	}
	dyn, err := conn.Dynamic()
	if err != nil {
		return err
	}
	// What the cluster serves may have changed since the connection
	// last asked (a lab's CRDs wiped and made again).
	if m, err := conn.Mapper(); err == nil {
		m.Reset()
	}
	at := time.Now()
	took := func(part string) {
		slog.Debug("sandbox reset", "part", part, "ms", time.Since(at).Milliseconds())
		at = time.Now()
	}
	if err := deleteNamespaces(ctx, conn.Host(), cs, dyn, st.Namespaces); err != nil {
		return err
	}
	took("namespaces")
	if err := wipe(ctx, dyn, st.Wipe); err != nil {
		return err
	}
	took("wipe")
	if err := dropChanged(ctx, conn, st); err != nil {
		return err
	}
	took("changed")
	if err := resetNodes(ctx, cs, st.Nodes); err != nil {
		return err
	}
	if err := setMarker(ctx, cs, st.Lab); err != nil {
		return err
	}
	names := make([]string, len(st.Nodes))
	for i, n := range st.Nodes {
		names[i] = n.Name
	}
	if err := waitNodesReady(ctx, cs, names); err != nil {
		return err
	}
	took("nodes")
	err = applyManifests(ctx, conn, st.Manifests)
	took("manifests")
	return err
}

// emptyNamespace deletes what makes a namespace slow to go away: the
// controllers that make pods, then the pods, at once. The namespace
// controller waits 5 s after a namespace is deleted before it empties it
// (kube-controller-manager's namespaceDeletionGracePeriod) and, when pods
// are left with a grace period to honour, waits that long again; a
// controller still there would make new pods in between (a DaemonSet does
// at once). deleteNamespaces calls it first: the controllers gone, nothing
// makes pods while the namespace's objects are purged, and when the purge
// is left to the controller it goes in one pass, about 5 s instead of 10.
func emptyNamespace(ctx context.Context, cs kube.Interface, ns string) error {
	all, now := metav1.ListOptions{}, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}
	bg := metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)}
	for _, del := range []func() error{
		func() error { return cs.AppsV1().DaemonSets(ns).DeleteCollection(ctx, bg, all) },
		func() error { return cs.AppsV1().Deployments(ns).DeleteCollection(ctx, bg, all) },
		func() error { return cs.AppsV1().StatefulSets(ns).DeleteCollection(ctx, bg, all) },
		func() error { return cs.AppsV1().ReplicaSets(ns).DeleteCollection(ctx, bg, all) },
		func() error { return cs.BatchV1().CronJobs(ns).DeleteCollection(ctx, bg, all) },
		func() error { return cs.BatchV1().Jobs(ns).DeleteCollection(ctx, bg, all) },
		func() error { return cs.CoreV1().Pods(ns).DeleteCollection(ctx, now, all) },
	} {
		if err := del(); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// wipe deletes every object of each cluster-scoped resource. A resource
// the cluster does not serve (a CRD not installed yet) has none.
func wipe(ctx context.Context, dyn dynamic.Interface, gvrs []schema.GroupVersionResource) error {
	for _, gvr := range gvrs {
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		for i := 0; err == nil && i < len(list.Items); i++ {
			err = dyn.Resource(gvr).Delete(ctx, list.Items[i].GetName(), metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				err = nil
			}
		}
		if err != nil {
			return wrapMsg(err, "sandbox.err.wipe", "resource", gvr.Resource+"."+gvr.Group)
		}
	}
	return nil
}

// restoreNode sets a node's labels, taints, schedulability, capacity and
// allocatable to fresh's with JSON patches, which carry no resource
// version: kwok writes node status all the time, and an update that
// reads first loses that race again and again.
func restoreNode(ctx context.Context, cs kube.Interface, fresh *corev1.Node) error {
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	taints := fresh.Spec.Taints
	if taints == nil {
		taints = []corev1.Taint{}
	}
	meta, err := json.Marshal([]op{
		{"add", "/metadata/labels", fresh.Labels},
		{"add", "/spec/taints", taints},
		{"add", "/spec/unschedulable", false},
	})
	if err != nil {
		return err
	}
	if _, err := cs.CoreV1().Nodes().Patch(ctx, fresh.Name, types.JSONPatchType, meta, metav1.PatchOptions{}); err != nil {
		return err
	}
	status, err := json.Marshal([]op{
		{"add", "/status/capacity", fresh.Status.Capacity},
		{"add", "/status/allocatable", fresh.Status.Allocatable},
	})
	if err != nil {
		return err
	}
	_, err = cs.CoreV1().Nodes().Patch(ctx, fresh.Name, types.JSONPatchType, status, metav1.PatchOptions{}, "status")
	return err
}

// resetNodes makes the fake nodes exactly the topology.
func resetNodes(ctx context.Context, cs kube.Interface, nodes []NodeSpec) error {
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: KwokNodeLabel + "=kwok"})
	if err != nil {
		return wrapMsg(err, "sandbox.err.list_nodes")
	}
	want := map[string]NodeSpec{}
	for _, n := range nodes {
		want[n.Name] = n
	}
	for i := range list.Items {
		n := &list.Items[i]
		spec, keep := want[n.Name]
		if !keep {
			if err := cs.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return wrapMsg(err, "sandbox.err.delete_node", "node", n.Name)
			}
			// Pods bound to it would wait for the pod garbage collector
			// (and hold their namespaces) for a minute or more.
			pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + n.Name})
			if err == nil {
				for _, p := range pods.Items {
					_ = cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
				}
			}
			continue
		}
		if err := restoreNode(ctx, cs, Node(spec)); err != nil {
			return wrapMsg(err, "sandbox.err.reset_node", "node", n.Name)
		}
		delete(want, n.Name)
	}
	for _, spec := range nodes {
		if _, missing := want[spec.Name]; !missing {
			continue
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, Node(spec), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return wrapMsg(err, "sandbox.err.create_node", "node", spec.Name)
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
