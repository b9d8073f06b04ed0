package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// gizmoLab watches a cluster-scoped custom resource its crds/ define; its
// sandbox starts with one Gizmo and a PriorityClass (cluster-scoped, not
// watched).
var gizmoLab = map[string]string{
	"lab.toml": `id = "gizmo-lab"
title = "기즈모"
default_root = "/tmp/gizmo-lab"
intro = "intro.md"

[cluster]
watch = ["gizmos.labmate.example.com"]

[[steps]]
number = 1
id = "size"
title = "기즈모"
body = "steps/01.md"

[[steps.checks]]
id = "g1"
type = "object"
kind = "Gizmo"
name = "g1"
`,
	"intro.md":         "# 기즈모\n",
	"steps/01.md":      "# 기즈모\n",
	"crds/gizmos.yaml": testfiles.CRD("labmate.example.com", "Gizmo", "gizmos", false, "size: {type: integer}", "colour: {type: string}"),
	"sandbox/10-start.yaml": `apiVersion: labmate.example.com/v1
kind: Gizmo
metadata:
  name: g1
spec:
  size: 3
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gizmo-high
value: 1000
description: start
`,
}

var gizmos = schema.GroupVersionResource{Group: "labmate.example.com", Version: "v1", Resource: "gizmos"}

// A reset brings a cluster-scoped custom resource the sandbox made back
// to what sandbox/ declares, deletes one the learner made, restores a
// cluster-scoped object of an unwatched kind the learner changed, and
// leaves the CRD nobody changed alone. Meanwhile the learner's ordinary
// `kubectl apply`, client-side and server-side, works on what the
// sandbox made: no warning about the last-applied annotation, no
// conflict with the sandbox's field manager.
func TestResetRestoresWhatTheLabDeclaresE2E(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	dyn := sandboxtest.Dynamic(t)
	sandboxtest.LockLab(t)
	ctx := context.Background()
	kubectl := filepath.Join(sandboxtest.Options().ResolvedBinDir(), "kubectl")
	kctx := sandbox.Context(sandboxtest.Options())
	dir := t.TempDir()
	for name, body := range gizmoLab {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text, err := content.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	kit, err := labkit.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := sandbox.ManifestsOf(text)
	if err != nil {
		t.Fatal(err)
	}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	t.Cleanup(func() {
		_ = dyn.Resource(crds).Delete(ctx, "gizmos.labmate.example.com", metav1.DeleteOptions{})
		_ = cs.SchedulingV1().PriorityClasses().Delete(ctx, "gizmo-high", metav1.DeleteOptions{})
	})
	start := sandbox.Start{Lab: text.ID, Namespaces: text.Cluster.Namespaces, Nodes: sandboxtest.Options().Nodes, Wipe: kit.Wipe(), Manifests: ms}
	reset := func() {
		t.Helper()
		rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		if err := sandbox.Reset(rctx, sandboxtest.Conn(t), start); err != nil {
			t.Fatal(err)
		}
	}
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig, "--context", kctx}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if strings.Contains(string(out), "Warning") {
			t.Errorf("kubectl %s warns:\n%s", strings.Join(args, " "), out)
		}
		return string(out)
	}

	reset()
	crd, err := dyn.Resource(crds).Get(ctx, "gizmos.labmate.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// The learner's kubectl apply, both ways, on what the sandbox made.
	run("apiVersion: labmate.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g1\nspec:\n  size: 5\n  colour: red\n", "apply", "-f", "-")
	run("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: gizmo-high\n  labels: {team: learner}\nvalue: 1000\ndescription: learner\n", "apply", "--server-side", "-f", "-")
	run("apiVersion: labmate.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g2\nspec:\n  size: 1\n", "create", "-f", "-")

	reset()
	g1, err := dyn.Resource(gizmos).Get(ctx, "g1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if spec, _, _ := unstructured.NestedMap(g1.Object, "spec"); len(spec) != 1 || spec["size"] != int64(3) {
		t.Errorf("g1 spec after reset = %v, want the sandbox's {size: 3}", spec)
	}
	if _, err := dyn.Resource(gizmos).Get(ctx, "g2", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the learner's g2 after reset: %v, want it gone", err)
	}
	pc, err := cs.SchedulingV1().PriorityClasses().Get(ctx, "gizmo-high", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pc.Description != "start" || len(pc.Labels) != 0 {
		t.Errorf("PriorityClass gizmo-high after reset: description %q, labels %v; want the sandbox's %q and none", pc.Description, pc.Labels, "start")
	}
	again, err := dyn.Resource(crds).Get(ctx, "gizmos.labmate.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.GetUID() != crd.GetUID() {
		t.Error("the CRD nobody changed was made again by the reset")
	}
}

// Reset takes a lab's namespace away at once, without the namespace
// controller's 5 s wait (sandbox/nsgone.go): it removes the namespace's
// finalizer itself, and must do so only once every object in it is gone,
// of every namespaced resource the server has, or those objects would be
// left in etcd and come back in the next namespace of that name. A
// namespace holding objects of many kinds (some no lab watches) is reset,
// made again, and must hold none of them.
func TestResetLeavesNothingOfANamespaceE2E(t *testing.T) {
	sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	dyn := sandboxtest.Dynamic(t)
	sandboxtest.LockLab(t)
	ctx := context.Background()
	const ns = "labmate-reset-orphans"
	objects := map[schema.GroupVersionResource]string{
		{Version: "v1", Resource: "configmaps"}:                                  `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"left"},"data":{"a":"b"}}`,
		{Version: "v1", Resource: "secrets"}:                                     `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"left"}}`,
		{Version: "v1", Resource: "serviceaccounts"}:                             `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"left"}}`,
		{Version: "v1", Resource: "resourcequotas"}:                              `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"left"},"spec":{"hard":{"pods":"9"}}}`,
		{Version: "v1", Resource: "pods"}:                                        `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"left"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`,
		{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}:        `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"left"}}`,
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}:   `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"left"}}`,
		{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}: `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"left"},"spec":{"podSelector":{}}}`,
		{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}:       `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"left"},"spec":{"maxUnavailable":1}}`,
		{Group: "apps", Version: "v1", Resource: "controllerrevisions"}:          `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"left"},"data":{},"revision":1}`,
		{Group: "batch", Version: "v1", Resource: "cronjobs"}:                    `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"left"},"spec":{"schedule":"@yearly","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}}`,
	}
	create := func() {
		t.Helper()
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}) })
	create()
	for gvr, body := range objects {
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON([]byte(body)); err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, &u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", gvr.Resource, err)
		}
	}
	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := sandbox.Reset(rctx, sandboxtest.Conn(t), sandbox.Start{Namespaces: []string{ns}, Nodes: sandboxtest.Options().Nodes}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("namespace %s after reset: %v, want it gone", ns, err)
	}
	create()
	for gvr := range objects {
		if _, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, "left", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s %q in the namespace made again after reset: %v, want none (left behind in etcd)", gvr.Resource, "left", err)
		}
	}
}
