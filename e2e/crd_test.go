package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// gadgetLab is a lab, written only as data, about a custom resource: its
// CRD in crds/, one step whose check reads a Gadget's spec.
var gadgetLab = map[string]string{
	"lab.toml": `id = "gadget-lab"
title = "가젯"
default_root = "/tmp/gadget-lab"
intro = "intro.md"

[cluster]
namespaces = ["gadget-lab"]
watch = ["gadgets.labmate.example.com"]

[[steps]]
number = 1
id = "size"
title = "가젯 크기"
body = "steps/01.md"

[[steps.checks]]
id = "gadget"
type = "object"
kind = "Gadget"
namespace = "gadget-lab"
name = "g1"

[[steps.checks.rules]]
expr = "object.spec.size == 3"
field = "spec.size"
show = "string(object.spec.size)"
fail = "gadget.size"
`,
	"intro.md":         "# 가젯\n",
	"steps/01.md":      "# 크기\n",
	"messages.toml":    "[gadget]\nsize = \"가젯 g1 의 spec.size 는 3 이어야 합니다 (지금 {got}).\"\n",
	"crds/gadget.yaml": gadgetCRD,
}

var gadgetCRD = testfiles.CRD("labmate.example.com", "Gadget", "gadgets", true)

var (
	gadgets = schema.GroupVersionResource{Group: "labmate.example.com", Version: "v1", Resource: "gadgets"}
	crds    = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// A lab directory that watches a custom resource: while its CRD is not
// installed the step is unknown and a notice names the resource and the
// step; once the sandbox serves it (the lab's crds/ applied as a reset
// does), the step turns green with the object right and red again when
// it changes, all through dynamic informers and no Go of the lab's.
func TestCustomResourceLabE2E(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	dyn := sandboxtest.Dynamic(t)
	sandboxtest.LockLab(t)
	bin := buildLabmate(t)
	dir := testfiles.Dir(t, gadgetLab)
	ctx := context.Background()
	kctx := sandbox.Context(sandboxtest.Options())
	dropCRD := func() {
		_ = dyn.Resource(crds).Delete(ctx, "gadgets.labmate.example.com", metav1.DeleteOptions{})
		_ = cs.CoreV1().Namespaces().Delete(ctx, "gadget-lab", metav1.DeleteOptions{})
	}
	dropCRD()
	t.Cleanup(dropCRD)

	// Not served: unknown, with the notice.
	args := []string{"--lab-dir", dir, "--kubeconfig", kubeconfig, "--context", kctx, "--root", t.TempDir(), "--state-dir", t.TempDir()}
	var rep engine.Report
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _ := exec.Command(bin, append([]string{"check", "--json"}, args...)...).Output()
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("check --json: %v\n%s", err, out)
		}
		// A CRD being deleted may still be served for a moment.
		if len(rep.Cluster.Missing) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if st := rep.Step(1); st == nil || st.Status != "unknown" {
		t.Fatalf("step 1 without the CRD: %+v", rep.Step(1))
	}
	if !strings.Contains(strings.Join(rep.Problems, "\n"), "gadgets.labmate.example.com") || !strings.Contains(strings.Join(rep.Problems, "\n"), "1단계") {
		t.Fatalf("no notice naming the resource and the step: %q", rep.Problems)
	}

	// Served: the lab's crds/ applied as a reset applies them.
	lab, err := content.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := sandbox.ManifestsOf(lab)
	if err != nil {
		t.Fatal(err)
	}
	if err := sandbox.Reset(ctx, sandboxtest.Conn(t), sandbox.Start{Namespaces: []string{"gadget-lab"}, Nodes: sandboxtest.Options().Nodes, Manifests: ms}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gadget-lab"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	watch := exec.Command(bin, append([]string{"check", "--watch", "--json"}, args...)...)
	stdout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = watch.Process.Kill(); _ = watch.Wait() })
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	next := func(what string, want string) {
		t.Helper()
		for lines.Scan() {
			var r engine.Report
			if json.Unmarshal(lines.Bytes(), &r) == nil && r.Step(1) != nil && string(r.Step(1).Status) == want {
				return
			}
		}
		t.Fatalf("the watch ended before %s", what)
	}
	next("the first report", "failed")
	gadget := func(size int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "labmate.example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": "g1", "namespace": "gadget-lab"},
			"spec":     map[string]any{"size": size},
		}}
	}
	if _, err := dyn.Resource(gadgets).Namespace("gadget-lab").Create(ctx, gadget(3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	next("the gadget made right", "passed")
	cur, err := dyn.Resource(gadgets).Namespace("gadget-lab").Get(ctx, "g1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(cur.Object, int64(2), "spec", "size")
	if _, err := dyn.Resource(gadgets).Namespace("gadget-lab").Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	next("the gadget changed", "failed")
}
