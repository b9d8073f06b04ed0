package sandbox

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/labhub/labmate/kube/kubefake"
)

func readyNode(spec NodeSpec) *corev1.Node {
	n := Node(spec)
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	return n
}

// Reset brings a used sandbox back to a lab's start: the lab's namespaces
// gone, RuntimeClasses gone, a node of no spec gone, a changed node as its
// spec says, the marker naming the lab.
func TestResetRestoresALabsStart(t *testing.T) {
	gpu := NodeSpec{Name: "gpu-0", Labels: map[string]string{"gpu": "true"},
		Capacity: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("4")}}
	changed := readyNode(gpu)
	changed.Labels["gpu"] = "false"
	changed.Labels["driver"] = "550"
	changed.Status.Capacity = corev1.ResourceList{}
	extra := readyNode(NodeSpec{Name: "left-over"})
	cs := kubefake.New(changed, extra,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lab"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "p"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: MarkerNamespace, Name: MarkerName}, Data: map[string]string{"lab": ""}})
	dyn := dynamicfake.NewSimpleDynamicClient(scheme.Scheme, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Handler: "gpu"})
	rcs := schema.GroupVersionResource{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses"}
	ctx := context.Background()
	if err := Reset(ctx, kubefake.NewConn(cs, dyn), Start{Lab: "demo", Namespaces: []string{"lab"}, Nodes: []NodeSpec{gpu}, Wipe: []schema.GroupVersionResource{rcs}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "lab", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace lab: %v, want it gone", err)
	}
	if pods, _ := cs.CoreV1().Pods("lab").List(ctx, metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("%d pods left in lab", len(pods.Items))
	}
	if left, _ := dyn.Resource(rcs).List(ctx, metav1.ListOptions{}); len(left.Items) != 0 {
		t.Errorf("%d RuntimeClasses left", len(left.Items))
	}
	if _, err := cs.CoreV1().Nodes().Get(ctx, "left-over", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("node left-over: %v, want it gone", err)
	}
	n, err := cs.CoreV1().Nodes().Get(ctx, "gpu-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Labels["gpu"] != "true" || n.Labels["driver"] != "" {
		t.Errorf("gpu-0 labels %v, want the spec's", n.Labels)
	}
	if q := n.Status.Capacity["nvidia.com/gpu"]; q.String() != "4" {
		t.Errorf("gpu-0 capacity %v, want nvidia.com/gpu 4", n.Status.Capacity)
	}
	if cm, _ := cs.CoreV1().ConfigMaps(MarkerNamespace).Get(ctx, MarkerName, metav1.GetOptions{}); cm.Data["lab"] != "demo" {
		t.Errorf("marker %v, want lab demo", cm.Data)
	}
}
