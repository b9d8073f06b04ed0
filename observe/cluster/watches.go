package cluster

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/labhub/labmate/observe"
)

// watchSpec is one informer: a kind, the list/watch calls that scope it,
// and a client-side filter repeating the field selector (a fake clientset,
// or a server that ignores a selector, must not widen what labmate sees).
type watchSpec struct {
	kind      string // observe.ObjectObs.Kind
	desc      string // names the informer in error texts: "pods in gpu-lab"
	resource  string // what RBAC names: "pods", "daemonsets.apps"
	namespace string // "" for a cluster-scoped resource
	example   runtime.Object
	list      func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error)
	watch     func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error)
	keep      func(obj any) bool
}

// listWatcher is what every typed client-go resource interface offers.
type listWatcher[L runtime.Object] interface {
	List(ctx context.Context, o metav1.ListOptions) (L, error)
	Watch(ctx context.Context, o metav1.ListOptions) (watch.Interface, error)
}

// resourceScope is what RBAC calls the resource an informer reads:
// resource[.group], and the namespace ("" when cluster-scoped).
type resourceScope struct{ resource, namespace string }

// spec builds a watchSpec on a typed resource interface; a non-empty
// fieldSelector is set on every list and watch.
func spec[L runtime.Object](kind, desc string, rs resourceScope, example runtime.Object, c listWatcher[L], fieldSelector string, keep func(any) bool) watchSpec {
	return watchSpec{
		kind: kind, desc: desc, resource: rs.resource, namespace: rs.namespace, example: example, keep: keep,
		list: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = fieldSelector
			return c.List(ctx, o)
		},
		watch: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = fieldSelector
			return c.Watch(ctx, o)
		},
	}
}

// watchSpecs lists the informers for a scope: per namespace the Namespace
// itself, its Pods, its Events of each reason (one informer a reason, each
// with a field selector), ConfigMaps and DaemonSets; each named node; and
// every RuntimeClass (cluster-scoped and few).
func watchSpecs(c kubernetes.Interface, namespaces, nodes, reasons []string) []watchSpec {
	if len(reasons) == 0 {
		reasons = []string{observe.FailedSchedulingReason}
	}
	var specs []watchSpec
	for _, ns := range namespaces {
		byName := fields.OneTermEqualSelector("metadata.name", ns).String()
		specs = append(specs,
			spec("Namespace", "namespace "+ns, resourceScope{"namespaces", ""}, &corev1.Namespace{}, c.CoreV1().Namespaces(), byName,
				func(obj any) bool { return nameOf(obj) == ns }),
			spec("Pod", "pods in "+ns, resourceScope{"pods", ns}, &corev1.Pod{}, c.CoreV1().Pods(ns), "", inNamespace(ns)))
		for _, reason := range reasons {
			specs = append(specs, spec("Event", reason+" events in "+ns, resourceScope{"events", ns}, &corev1.Event{}, c.CoreV1().Events(ns),
				fields.OneTermEqualSelector("reason", reason).String(),
				func(obj any) bool {
					e, ok := obj.(*corev1.Event)
					return ok && e.Namespace == ns && e.Reason == reason
				}))
		}
		specs = append(specs,
			spec("ConfigMap", "configmaps in "+ns, resourceScope{"configmaps", ns}, &corev1.ConfigMap{}, c.CoreV1().ConfigMaps(ns), "", inNamespace(ns)),
			spec("DaemonSet", "daemonsets in "+ns, resourceScope{"daemonsets.apps", ns}, &appsv1.DaemonSet{}, c.AppsV1().DaemonSets(ns), "", inNamespace(ns)),
		)
	}
	for _, node := range nodes {
		byName := fields.OneTermEqualSelector("metadata.name", node).String()
		specs = append(specs, spec("Node", "node "+node, resourceScope{"nodes", ""}, &corev1.Node{}, c.CoreV1().Nodes(), byName,
			func(obj any) bool { return nameOf(obj) == node }))
	}
	if len(namespaces)+len(nodes) > 0 {
		specs = append(specs, spec("RuntimeClass", "runtimeclasses", resourceScope{"runtimeclasses.node.k8s.io", ""}, &nodev1.RuntimeClass{},
			c.NodeV1().RuntimeClasses(), "", func(any) bool { return true }))
	}
	return specs
}

func inNamespace(ns string) func(obj any) bool {
	return func(obj any) bool {
		m, ok := obj.(metav1.Object)
		return ok && m.GetNamespace() == ns
	}
}

func nameOf(obj any) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetName()
	}
	return ""
}
