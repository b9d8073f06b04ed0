package cluster

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"

	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/kube/kubefake"
	"github.com/labhub/labmate/observe"
)

func res(spelling string) Resource {
	r, ok := Builtin().Lookup(spelling)
	if !ok {
		panic("no resource " + spelling)
	}
	return r
}

// labScope is what the GPU incident lab watches.
var labScope = Options{Scope: Scope{Namespaces: []string{"gpu-lab", "gpu-operator"}, Watches: []Watch{
	{Resource: res("namespaces"), Names: []string{"gpu-lab", "gpu-operator"}},
	{Resource: res("nodes"), Names: []string{"lab-node-0", "lab-node-1", "lab-node-2"}},
	{Resource: res("pods")},
	{Resource: res("events"), Fields: []string{"reason=FailedScheduling"}},
	{Resource: res("configmaps")},
	{Resource: res("daemonsets.apps")},
	{Resource: res("runtimeclasses.node.k8s.io")},
}}}

// nodeScope watches one node by name.
var nodeScope = Options{Scope: Scope{Watches: []Watch{{Resource: res("nodes"), Names: []string{"lab-node-0"}}}}}

// newFake is a fake dynamic client holding objs.
// newSource is a Source on a fake dynamic client and a mapper, with probe
// as its reachability probe.
func newSource(client dynamic.Interface, mapper meta.RESTMapper, probe ProbeFunc, opts Options) *Source {
	s, err := New(kubefake.NewConn(nil, client).WithMapper(mapper).WithVersion(probe), opts)
	if err != nil {
		panic(err)
	}
	return s
}

func newFake(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClient(scheme.Scheme, objs...)
}

var (
	nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	podsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

func toUnstructured(t testing.TB, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	u.SetGroupVersionKind(gvks[0])
	return u
}

func okProbe(context.Context) (string, error) { return "v1.34.0-test", nil }

// collector runs a source and keeps every observation it sends.
type collector struct {
	t      *testing.T
	ch     chan observe.Observation
	seen   []observe.Observation
	from   int // until looks at seen[from:] and later observations
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, src observe.Source) *collector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &collector{t: t, ch: make(chan observe.Observation, 1024), cancel: cancel, done: make(chan error, 1)}
	go func() { c.done <- src.Run(ctx, c.ch) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(patience):
			t.Errorf("Run did not return within %v of cancel", patience)
		}
	})
	return c
}

// forget makes until ignore what was seen so far.
func (c *collector) forget() { c.from = len(c.seen) }

// patience is the least time a test waits for what must come: a wait
// that is met returns at once, so a long one costs nothing when the code
// is right, and a loaded 2-core machine (the whole suite, or two burning
// loops beside it) still meets it. Callers' shorter windows say what they
// expect; they are raised to this.
const patience = 30 * time.Second

// until reads observations until pred holds for one of them.
func (c *collector) until(what string, timeout time.Duration, pred func(observe.Observation) bool) observe.Observation {
	c.t.Helper()
	timeout = max(timeout, patience)
	for _, o := range c.seen[c.from:] {
		if pred(o) {
			return o
		}
	}
	deadline := time.After(timeout)
	for {
		select {
		case o := <-c.ch:
			c.seen = append(c.seen, o)
			if pred(o) {
				return o
			}
		case <-deadline:
			c.t.Fatalf("no observation %s within %s; saw %d: %s", what, timeout, len(c.seen), summarize(c.seen))
			return observe.Observation{}
		}
	}
}

func summarize(obs []observe.Observation) string {
	var parts []string
	for _, o := range obs {
		switch {
		case o.Object != nil:
			parts = append(parts, string(o.Object.Op)+" "+o.Object.Kind+" "+o.Object.Namespace+"/"+o.Object.Name)
		case o.Cluster != nil:
			parts = append(parts, "cluster "+string(o.Cluster.State)+" "+o.Cluster.Err)
		case o.Synced != nil:
			parts = append(parts, "synced "+o.Synced.Source)
		}
	}
	return strings.Join(parts, ", ")
}

func isObject(op observe.Op, kind, ns, name string) func(observe.Observation) bool {
	return func(o observe.Observation) bool {
		return o.Object != nil && o.Object.Op == op && o.Object.Kind == kind && o.Object.Namespace == ns && o.Object.Name == name
	}
}

func isSynced(o observe.Observation) bool { return o.Synced != nil && o.Synced.Source == SourceName }

func isState(s observe.ClusterState) func(observe.Observation) bool {
	return func(o observe.Observation) bool { return o.Cluster != nil && o.Cluster.State == s }
}

func node(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kwok"}}}}
}

func TestInformersDeliverScopedObjects(t *testing.T) {
	client := newFake(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gpu-lab"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		node("lab-node-0"), node("lab-node-1"), node("other-node"),
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-lab", Name: "cuda-probe"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "elsewhere"}},
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-lab", Name: "e1"}, Reason: "FailedScheduling", Message: "0/3 nodes are available"},
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-lab", Name: "e2"}, Reason: "Scheduled"},
		&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu-runtime"}, Handler: "gpu-runtime"},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "time-slicing-config"}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "container-toolkit"}},
	)
	c := start(t, newSource(client, Builtin().RESTMapper(), okProbe, labScope))
	c.until("connecting first", time.Second, func(o observe.Observation) bool { return o.Cluster != nil })
	if first := c.seen[0]; first.Cluster == nil || first.Cluster.State != observe.ClusterConnecting {
		t.Fatalf("first observation = %s, want cluster connecting", summarize(c.seen[:1]))
	}
	c.until("synced", 10*time.Second, isSynced)

	// Everything in scope arrived before Synced; nothing out of scope did.
	want := []func(observe.Observation) bool{
		isObject(observe.OpUpsert, "Namespace", "", "gpu-lab"),
		isObject(observe.OpUpsert, "Node", "", "lab-node-0"),
		isObject(observe.OpUpsert, "Node", "", "lab-node-1"),
		isObject(observe.OpUpsert, "Pod", "gpu-lab", "cuda-probe"),
		isObject(observe.OpUpsert, "Event", "gpu-lab", "e1"),
		isObject(observe.OpUpsert, "RuntimeClass", "", "gpu-runtime"),
		isObject(observe.OpUpsert, "ConfigMap", "gpu-operator", "time-slicing-config"),
		isObject(observe.OpUpsert, "DaemonSet", "gpu-operator", "container-toolkit"),
	}
	syncedAt := -1
	for i, o := range c.seen {
		if isSynced(o) {
			syncedAt = i
		}
	}
	for i, pred := range want {
		found := false
		for _, o := range c.seen[:syncedAt] {
			if pred(o) {
				found = true
			}
		}
		if !found {
			t.Errorf("wanted object #%d before Synced; saw %s", i, summarize(c.seen))
		}
	}
	for _, o := range c.seen {
		if o.Object == nil {
			continue
		}
		switch o.Object.Name {
		case "default", "other-node", "elsewhere", "e2":
			t.Errorf("out-of-scope object delivered: %s %s", o.Object.Kind, o.Object.Name)
		}
		if m, ok := o.Object.Object.(metav1.Object); ok && len(m.GetManagedFields()) > 0 {
			t.Errorf("%s %s kept its managed fields", o.Object.Kind, o.Object.Name)
		}
	}
	c.until("cluster synced state", time.Second, isState(observe.ClusterSynced))

	// Changes flow through as upserts and deletes of typed objects.
	ctx := context.Background()
	n := node("lab-node-0")
	n.Status.Allocatable = corev1.ResourceList{"example.com/gpu": resource.MustParse("4")}
	if _, err := client.Resource(nodesGVR).UpdateStatus(ctx, toUnstructured(t, n), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	o := c.until("node update", 5*time.Second, func(o observe.Observation) bool {
		if !isObject(observe.OpUpsert, "Node", "", "lab-node-0")(o) {
			return false
		}
		got := o.Object.Object.(*corev1.Node).Status.Allocatable["example.com/gpu"]
		return got.String() == "4"
	})
	if len(o.Object.Object.(*corev1.Node).ManagedFields) != 0 {
		t.Errorf("updated node kept managed fields")
	}
	if err := client.Resource(podsGVR).Namespace("gpu-lab").Delete(ctx, "cuda-probe", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.until("pod delete", 5*time.Second, isObject(observe.OpDelete, "Pod", "gpu-lab", "cuda-probe"))
	if _, err := client.Resource(podsGVR).Namespace("default").Create(ctx, toUnstructured(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "late"}}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Resource(podsGVR).Namespace("gpu-lab").Create(ctx, toUnstructured(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-lab", Name: "again"}}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.until("new pod", 5*time.Second, isObject(observe.OpUpsert, "Pod", "gpu-lab", "again"))
	for _, o := range c.seen {
		if o.Object != nil && o.Object.Name == "late" {
			t.Errorf("pod in another namespace delivered")
		}
	}
}

// A list the server refuses for good (RBAC) is an error state naming the
// verb, the resource and the namespace, announced as synced so `labmate
// check` does not hang, and left once the role is granted.
func TestForbiddenListIsAnErrorAndDoesNotHang(t *testing.T) {
	client := newFake()
	var allowed atomic.Bool
	client.PrependReactor("list", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if allowed.Load() {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "", errors.New("RBAC: no list"))
	})
	c := start(t, newSource(client, Builtin().RESTMapper(), okProbe, labScope))
	c.until("synced despite forbidden", 10*time.Second, isSynced)
	o := c.until("error state", 5*time.Second, func(o observe.Observation) bool {
		return o.Cluster != nil && o.Cluster.State == observe.ClusterError && strings.Count(o.Cluster.Err, ": 403 ") == 2
	})
	const want = "list daemonsets.apps in gpu-lab: 403 Forbidden (daemonsets.apps is forbidden: RBAC: no list); " +
		"list daemonsets.apps in gpu-operator: 403 Forbidden (daemonsets.apps is forbidden: RBAC: no list)"
	if o.Cluster.Err != want {
		t.Errorf("Err = %q\nwant  %q", o.Cluster.Err, want)
	}
	wantRefusals := []observe.Refusal{
		{Verb: "list", Resource: "daemonsets.apps", Namespace: "gpu-lab", Code: 403},
		{Verb: "list", Resource: "daemonsets.apps", Namespace: "gpu-operator", Code: 403},
	}
	if !reflect.DeepEqual(o.Cluster.Refusals, wantRefusals) {
		t.Errorf("Refusals = %+v\nwant       %+v", o.Cluster.Refusals, wantRefusals)
	}
	for _, o := range c.seen {
		if o.Cluster != nil && o.Cluster.State == observe.ClusterSynced {
			t.Errorf("reported synced while daemonsets cannot be listed")
		}
	}
	// The reflector lists again by itself; once it may, the error clears.
	allowed.Store(true)
	c.forget()
	c.until("synced once allowed", 20*time.Second, isState(observe.ClusterSynced))
}

// A watch refused after a list that succeeded stays an error: a later
// successful list does not clear it.
func TestForbiddenWatchIsAnError(t *testing.T) {
	client := newFake(node("lab-node-0"))
	client.PrependWatchReactor("nodes", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("RBAC: no watch"))
	})
	c := start(t, newSource(client, Builtin().RESTMapper(), okProbe, nodeScope))
	o := c.until("error state", 10*time.Second, isState(observe.ClusterError))
	if !strings.HasPrefix(o.Cluster.Err, "watch nodes: 403 Forbidden (") {
		t.Errorf("Err = %q", o.Cluster.Err)
	}
	if want := []observe.Refusal{{Verb: "watch", Resource: "nodes", Code: 403}}; !reflect.DeepEqual(o.Cluster.Refusals, want) {
		t.Errorf("Refusals = %+v, want %+v", o.Cluster.Refusals, want)
	}
	c.forget()
	time.Sleep(2 * time.Second) // the reflector lists again meanwhile
	for _, o := range c.seen[c.from:] {
		if o.Cluster != nil && o.Cluster.State != observe.ClusterError {
			t.Errorf("left the error state while watches are refused: %s", summarize(c.seen[c.from:]))
		}
	}
}

// Bad credentials: the probe and the lists are answered 401. That is a
// refusal, not an unreachable server.
func TestUnauthorizedIsAnErrorNotUnreachable(t *testing.T) {
	client := newFake()
	client.PrependReactor("list", "*", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewUnauthorized("Unauthorized")
	})
	probe := func(context.Context) (string, error) { return "", apierrors.NewUnauthorized("Unauthorized") }
	c := start(t, newSource(client, Builtin().RESTMapper(), probe, nodeScope))
	// Every informer is refused, each in its own time: wait for the nodes
	// informer's refusal rather than take whichever came first.
	c.until("nodes refused with 401", 10*time.Second, func(o observe.Observation) bool {
		return o.Cluster != nil && o.Cluster.State == observe.ClusterError &&
			strings.Contains(o.Cluster.Err, "list nodes: 401 Unauthorized")
	})
	c.until("synced", 5*time.Second, isSynced)
	for _, o := range c.seen {
		if o.Cluster != nil && o.Cluster.State == observe.ClusterUnreachable {
			t.Errorf("a server that answers 401 reported unreachable")
		}
	}
}

// A server without the resource type answers 404.
func TestMissingResourceTypeIsAnError(t *testing.T) {
	client := newFake()
	client.PrependReactor("list", "runtimeclasses", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}, "")
	})
	scope := nodeScope
	scope.Scope.Watches = append(scope.Scope.Watches, Watch{Resource: res("runtimeclasses.node.k8s.io")})
	c := start(t, newSource(client, Builtin().RESTMapper(), okProbe, scope))
	o := c.until("error state", 10*time.Second, isState(observe.ClusterError))
	if !strings.HasPrefix(o.Cluster.Err, "list runtimeclasses.node.k8s.io: 404 NotFound (") {
		t.Errorf("Err = %q", o.Cluster.Err)
	}
}

// A watch that breaks with a network error makes the source probe; a
// failing probe turns the state unreachable, and recovery brings it back
// to synced once the informer lists or watches again. Connection refused
// is the error client-go's reflector retries silently, without calling
// the watch error handler: the wrapped list/watch calls must catch it.
func TestWatchErrorTriggersProbe(t *testing.T) {
	client := newFake(node("lab-node-0"))
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	var down atomic.Bool
	var probes atomic.Int32
	probe := func(context.Context) (string, error) {
		probes.Add(1)
		if down.Load() {
			return "", refused
		}
		return "v1.34.0", nil
	}
	client.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		if down.Load() {
			return true, nil, refused
		}
		return false, nil, nil
	})
	watches := make(chan *watch.FakeWatcher, 16)
	client.PrependWatchReactor("nodes", func(k8stesting.Action) (bool, watch.Interface, error) {
		if down.Load() {
			return true, nil, refused
		}
		w := watch.NewFake()
		watches <- w
		return true, w, nil
	})
	c := start(t, newSource(client, Builtin().RESTMapper(), probe, nodeScope))
	c.until("synced", 10*time.Second, isState(observe.ClusterSynced))
	// Synced says the list was read; the watch after it may start later.
	// Taken down before it started, the watch would be refused, and
	// there would be no watch to break.
	var w *watch.FakeWatcher
	select {
	case w = <-watches:
	case <-time.After(patience):
		t.Fatalf("no watch of nodes within %v of the sync", patience)
	}
	before := probes.Load()

	down.Store(true)
	c.forget()
	time.Sleep(1100 * time.Millisecond) // a watch shorter than 1s is a different error path
	w.Stop()
	o := c.until("unreachable", 10*time.Second, isState(observe.ClusterUnreachable))
	if !strings.Contains(o.Cluster.Err, "connection refused") {
		t.Errorf("Err = %q", o.Cluster.Err)
	}
	if probes.Load() <= before {
		t.Errorf("no probe after the watch error")
	}

	down.Store(false)
	c.forget()
	c.until("synced again", 15*time.Second, isState(observe.ClusterSynced))
}

func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	user := "  user:\n    token: x\n"
	kc := "apiVersion: v1\nkind: Config\ncurrent-context: lab\nclusters:\n- name: lab\n  cluster:\n    server: " + server +
		"\ncontexts:\n- name: lab\n  context:\n    cluster: lab\n    user: lab\n- name: other\n  context:\n    cluster: lab\n    user: lab\nusers:\n- name: lab\n" + user
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Port 1 on loopback refuses at once: the source must say unreachable
// quickly, and say it is synced so `labmate check` does not wait.
func TestUnreachableServerIsReportedQuickly(t *testing.T) {
	kc := writeKubeconfig(t, "http://127.0.0.1:1")
	conn, err := kube.Open(kube.Options{Path: kc})
	if err != nil {
		t.Fatal(err)
	}
	src, err := New(conn, labScope)
	if err != nil {
		t.Fatal(err)
	}
	// How soon it says so is the probe's timeout (bench: not asserted
	// here); the windows only bound a source that never says it.
	c := start(t, src)
	o := c.until("unreachable", 20*time.Second, isState(observe.ClusterUnreachable))
	c.until("synced", 10*time.Second, isSynced)
	if !strings.Contains(o.Cluster.Err, "connection refused") || strings.Contains(o.Cluster.Err, "http://") {
		t.Errorf("Err = %q, want the short dial error without the URL", o.Cluster.Err)
	}
	if o.Cluster.Server != "http://127.0.0.1:1" || o.Cluster.Context != "lab" {
		t.Errorf("server/context = %q/%q", o.Cluster.Server, o.Cluster.Context)
	}
}

// No connection (no kubeconfig anywhere) is a cluster that is off.
func TestNoConnectionIsOff(t *testing.T) {
	src, err := New(nil, labScope)
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, src)
	c.until("off", time.Second, isState(observe.ClusterOff))
	c.until("synced", time.Second, isSynced)
}

// The source names the context the connection uses.
func TestSourceNamesTheContext(t *testing.T) {
	kc := writeKubeconfig(t, "http://127.0.0.1:1")
	conn, err := kube.Open(kube.Options{Path: kc, Context: "other"})
	if err != nil {
		t.Fatal(err)
	}
	src, err := New(conn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if src.context != "other" {
		t.Errorf("context = %q, want the override", src.context)
	}
}

var widgets = Resource{Group: "example.com", Version: "v1", Name: "widgets", Kind: "Widget"}

func widget(name string, timeSlicing bool) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"devicePlugin": map[string]any{"config": map[string]any{"name": "time-slicing-config"}}},
	}}
	if timeSlicing {
		_ = unstructured.SetNestedField(u.Object, "any", "spec", "devicePlugin", "config", "default")
	}
	return u
}

// A custom resource is watched like any kind, with no Go of its own: its
// objects arrive unstructured, changes and deletes too.
func TestCustomResourceIsWatched(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme.Scheme,
		map[schema.GroupVersionResource]string{widgets.GVR(): "WidgetList"},
		widget("widget-a", false))
	opts := Options{Scope: Scope{Watches: []Watch{{Resource: widgets}}}}
	c := start(t, newSource(client, Builtin().With(widgets).RESTMapper(), okProbe, opts))
	o := c.until("the policy", 10*time.Second, isObject(observe.OpUpsert, "Widget", "", "widget-a"))
	if _, ok := o.Object.Object.(*unstructured.Unstructured); !ok {
		t.Fatalf("a custom resource arrived as %T", o.Object.Object)
	}
	c.until("synced", 5*time.Second, isState(observe.ClusterSynced))
	ctx := context.Background()
	if _, err := client.Resource(widgets.GVR()).Update(ctx, widget("widget-a", true), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.until("the update", 5*time.Second, func(o observe.Observation) bool {
		if !isObject(observe.OpUpsert, "Widget", "", "widget-a")(o) {
			return false
		}
		v, _, _ := unstructured.NestedString(o.Object.Object.(*unstructured.Unstructured).Object, "spec", "devicePlugin", "config", "default")
		return v == "any"
	})
	if err := client.Resource(widgets.GVR()).Delete(ctx, "widget-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.until("the delete", 5*time.Second, isObject(observe.OpDelete, "Widget", "", "widget-a"))
}

// A resource the server does not serve (its CRD is not installed) is
// named as missing; the rest of the scope is watched and synced.
func TestResourceNotServedIsMissing(t *testing.T) {
	client := newFake(node("lab-node-0"))
	opts := nodeScope
	opts.Scope.Watches = append(opts.Scope.Watches, Watch{Resource: widgets})
	c := start(t, newSource(client, Builtin().RESTMapper(), okProbe, opts))
	o := c.until("synced", 10*time.Second, isState(observe.ClusterSynced))
	want := []observe.Missing{{Resource: "widgets.example.com", Kind: "Widget"}}
	if !reflect.DeepEqual(o.Cluster.Missing, want) {
		t.Fatalf("missing = %+v, want %+v", o.Cluster.Missing, want)
	}
	c.until("the node", time.Second, isObject(observe.OpUpsert, "Node", "", "lab-node-0"))
}

// A label selector narrows what is watched, on the server and again here.
func TestLabelSelectorNarrows(t *testing.T) {
	pod := func(name string, lbl map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, Labels: lbl}}
	}
	client := newFake(pod("trainer", map[string]string{"app": "train"}), pod("other", nil))
	opts := Options{Scope: Scope{Namespaces: []string{"ml"}, Watches: []Watch{{Resource: res("pods"), Labels: "app=train"}}}}
	c := start(t, newSource(client, Builtin().RESTMapper(), okProbe, opts))
	c.until("synced", 10*time.Second, isState(observe.ClusterSynced))
	for _, o := range c.seen {
		if o.Object != nil && o.Object.Name == "other" {
			t.Fatal("a pod without the label was delivered")
		}
	}
	c.until("the trainer", time.Second, isObject(observe.OpUpsert, "Pod", "ml", "trainer"))
}
