package e2e

// Helpers of the e2e tests: building the real binary, node status
// patches and restoring them.

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/labmate/internal/testbin"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// buildLabmate builds the real binary once per test binary.
func buildLabmate(tb testing.TB) string {
	tb.Helper()
	return testbin.Build(tb, "../cmd/labmate")
}

// restoreNode puts a node's capacity and allocatable back to the
// GPU lab's topology (no GPUs).
func restoreNode(ctx context.Context, tb testing.TB, cs kube.Interface, name string) {
	tb.Helper()
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	var want corev1.NodeStatus
	found := false
	for _, spec := range sandboxtest.Options().Nodes {
		if spec.Name == name {
			want, found = sandbox.Node(spec).Status, true
		}
	}
	if !found {
		tb.Fatalf("node %s is not in the e2e topology", name) // restoring it would clear its capacity
	}
	if reflect.DeepEqual(n.Status.Capacity, want.Capacity) && reflect.DeepEqual(n.Status.Allocatable, want.Allocatable) {
		return
	}
	n.Status.Capacity, n.Status.Allocatable = want.Capacity, want.Allocatable
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		tb.Fatal(err)
	}
}

// patchNodeGPU is `kubectl patch node NAME --subresource=status --type=merge`
// setting nvidia.com/gpu in capacity and allocatable.
func patchNodeGPU(ctx context.Context, cs kube.Interface, name, amount string) error {
	body := fmt.Sprintf(`{"status":{"capacity":{"nvidia.com/gpu":%q},"allocatable":{"nvidia.com/gpu":%q}}}`, amount, amount)
	_, err := cs.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{}, "status")
	return err
}
