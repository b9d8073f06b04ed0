package labkit

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// demo is the fixture lab of every declarative check type, observed the
// way the engine observes: files and live objects folded into a store,
// memory of the past kept across evaluations.
type demo struct {
	t       testing.TB
	lab     *Lab
	store   *observe.Store
	witness checks.Witness
	now     time.Time
}

func newDemo(t testing.TB) *demo { return demoOf(t, "testdata/kit-demo") }

func demoOf(t testing.TB, dir string) *demo {
	t.Helper()
	lab, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lab.Problems {
		t.Errorf("authoring problem: %v", p)
	}
	d := &demo{t: t, lab: lab, store: observe.NewStore(), now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	d.store.Apply(observe.Observation{Time: d.now, Cluster: &observe.ClusterObs{State: observe.ClusterSynced, Server: "https://127.0.0.1:6443"}})
	return d
}

// stepOneDone writes the kit-demo's step 1 right: a later step's
// witnesses count only once every earlier step passed.
func (d *demo) stepOneDone() {
	d.t.Helper()
	d.file("bin/run.sh", "#!/bin/sh\n", 0o755)
	d.file("etc/app.toml", "[server]\nname = \"demo-1\"\n[server.\"listen.tcp\"]\nenabled = true\n", 0o644)
	d.file("etc/values.yaml", "spec:\n  replicas: 3\n", 0o644)
	for id, r := range d.eval(1) {
		if r.Status != checks.Passed {
			d.t.Fatalf("step 1 not done: %s %s %s", id, r.Status, r.Message)
		}
	}
}

func (d *demo) tick() time.Time { d.now = d.now.Add(time.Second); return d.now }

func (d *demo) file(rel, body string, mode os.FileMode) {
	d.store.Apply(observe.Observation{Time: d.tick(), File: &observe.FileObs{Path: rel, State: observe.FilePresent, Content: []byte(body), Size: int64(len(body)), Mode: mode}})
}

func (d *demo) put(kind string, o runtime.Object) {
	m := o.(metav1.Object)
	d.store.Apply(observe.Observation{Time: d.tick(), Object: &observe.ObjectObs{Op: observe.OpUpsert, Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName(), Object: o}})
}

func (d *demo) del(kind, ns, name string) {
	d.store.Apply(observe.Observation{Time: d.tick(), Object: &observe.ObjectObs{Op: observe.OpDelete, Kind: kind, Namespace: ns, Name: name}})
}

// eval evaluates step n as the engine does: in the lab's order, each step
// remembers (knowing whether every earlier one passed), then decides.
func (d *demo) eval(n int) map[string]checks.Result {
	d.t.Helper()
	snap := d.store.Snapshot()
	inOrder := true
	var ev checks.StepEval
	for i, s := range d.lab.Steps {
		if s.Remember != nil {
			s.Remember(snap, &d.witness, inOrder)
		}
		ev = s.Eval(checks.Input{Lab: d.lab.Text, Snap: snap, Root: "/lab", Witness: &d.witness})
		if i == n-1 {
			break
		}
		inOrder = inOrder && checks.Aggregate(ev.Checks) == checks.Passed
	}
	out := map[string]checks.Result{}
	leak := regexp.MustCompile(`\blabkit\.[a-z_]+\.?[a-z_]*\b`)
	for _, r := range ev.Checks {
		for _, k := range d.lab.Text.OwnKeys() {
			if strings.Contains(r.Message, k) {
				d.t.Errorf("%s: the message key %s leaked: %q", r.ID, k, r.Message)
			}
		}
		if leak.MatchString(r.Message) {
			d.t.Errorf("%s: a message key leaked: %q", r.ID, r.Message)
		}
		out[r.ID] = r
	}
	return out
}

func expect(t *testing.T, rs map[string]checks.Result, id string, st checks.Status, words ...string) {
	t.Helper()
	r, ok := rs[id]
	if !ok {
		t.Fatalf("no result %s among %v", id, rs)
	}
	if r.Status != st {
		t.Errorf("%s: %s (%s), want %s", id, r.Status, r.Message, st)
	}
	for _, w := range words {
		if !strings.Contains(r.Message+" | "+r.Expected+" | "+r.Observed+" | "+r.Where, w) {
			t.Errorf("%s: %q (expected %q, observed %q, where %q) does not say %q", id, r.Message, r.Expected, r.Observed, r.Where, w)
		}
	}
}

func TestFileCheck(t *testing.T) {
	d := newDemo(t)
	expect(t, d.eval(1), "files.script", checks.Failed, "파일이 없습니다", "/lab/bin/run.sh")
	d.file("bin/run.sh", "#!/bin/sh\n", 0o644)
	expect(t, d.eval(1), "files.script", checks.Failed, "chmod +x", "0644", "실행 권한은 chmod +x 로 줍니다")
	d.file("bin/run.sh", "#!/bin/sh\n", 0o755)
	expect(t, d.eval(1), "files.script", checks.Passed, "0755")
}

func TestTOMLFieldCheck(t *testing.T) {
	d := newDemo(t)
	d.file("etc/app.toml", "[server]\nname = \"demo-1\"\n[server.\"listen.tcp\"]\nenabled = \"true\"\n", 0o644)
	rs := d.eval(1)
	expect(t, rs, "files.mode", checks.Failed, "문자열", "4번째 줄", "etc/app.toml:4:1")
	expect(t, rs, "files.name", checks.Waiting, "mode", "먼저 통과해야") // needs: can't check yet
	d.file("etc/app.toml", "[server]\nname = \"demo\"\n[server.\"listen.tcp\"]\nenabled = true\n", 0o644)
	rs = d.eval(1)
	expect(t, rs, "files.mode", checks.Passed)
	expect(t, rs, "files.name", checks.Failed, `"demo"`, "^demo-[0-9]+$", "etc/app.toml:2:1") // line and column, as YAML's places
	d.file("etc/app.toml", "[server]\nname = \"demo-7\"\n[server.\"listen.tcp\"]\nenabled = true\n", 0o644)
	expect(t, d.eval(1), "files.name", checks.Passed)
	d.file("etc/app.toml", "[server\nname = 1\n", 0o644)
	expect(t, d.eval(1), "files.mode", checks.Failed, "TOML 로 읽을 수 없습니다", "etc/app.toml:1:")
}

func TestYAMLFieldCheck(t *testing.T) {
	d := newDemo(t)
	d.file("etc/values.yaml", "spec:\n  replicas: \"3\"\n", 0o644)
	expect(t, d.eval(1), "files.replicas", checks.Failed, "etc/values.yaml:2:13")
	d.file("etc/values.yaml", "spec:\n  other: 1\n", 0o644)
	expect(t, d.eval(1), "files.replicas", checks.Failed, "spec.replicas 가 없습니다", "spec 까지는")
	d.file("etc/values.yaml", "spec:\n  replicas: 3\n", 0o644)
	expect(t, d.eval(1), "files.replicas", checks.Passed)
}

// A YAML value of the wrong type reads as the TOML check's does: the
// value seen with its type (a string quoted), the value wanted typed.
func TestYAMLFieldTypes(t *testing.T) {
	d := newDemo(t)
	for body, words := range map[string][]string{
		// equals = 3 (an integer)
		"spec:\n  replicas: \"3\"\n":   {`"3" 은 따옴표로 감싼 문자열입니다(2번째 줄)`, "따옴표 없는 정수 3", "spec.replicas: 3"},
		"spec:\n  replicas: !!str 3\n": {`"3" 은 따옴표로 감싼 문자열입니다(2번째 줄)`, "etc/values.yaml:2:13"},
		"spec:\n  replicas: 3.5\n":     {"값이 실수 3.5 입니다(2번째 줄)", "정수 3 이어야"},
		"spec:\n  replicas: 4\n":       {"값이 4 입니다(2번째 줄)", "기대값은 3 입니다"},
		"spec:\n  replicas: true\n":    {"값이 불리언 true 입니다(2번째 줄)", "정수 3 이어야"},
		"spec:\n  replicas:\n":         {"null(비어 있는 값)", ": 3 이어야"},
	} {
		d.file("etc/values.yaml", body, 0o644)
		expect(t, d.eval(1), "files.replicas", checks.Failed, words...)
	}
	d.file("etc/values.yaml", "spec:\n  replicas: 3.0\n", 0o644)
	expect(t, d.eval(1), "files.replicas", checks.Passed)

	// equals = "550" (a string), the value an integer.
	lab := openEdited(t, func(s string) string { return strings.Replace(s, "equals = 3", `equals = "550"`, 1) })
	d = &demo{t: t, lab: lab, store: observe.NewStore()}
	d.file("etc/values.yaml", "spec:\n  replicas: 550\n", 0o644)
	expect(t, d.eval(1), "files.replicas", checks.Failed, "값이 정수 550 입니다(2번째 줄)", `문자열 "550" 이어야`, `spec.replicas: "550"`)
	d.file("etc/values.yaml", "spec:\n  replicas: \"550\"\n", 0o644)
	expect(t, d.eval(1), "files.replicas", checks.Passed, `"550"`)
}

const podYAML = `apiVersion: v1
kind: Pod
metadata:
  name: widget
  namespace: demo
spec:
  nodeSelector:
    demo.example.com/pool: %s
  containers:
    - name: main
      image: busybox
`

func pod(pool string, phase corev1.PodPhase, uid string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "widget", Namespace: "demo", UID: types.UID(uid)},
		Spec:       corev1.PodSpec{NodeName: "demo-node-0", NodeSelector: map[string]string{"demo.example.com/pool": pool}, Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
		Status:     corev1.PodStatus{Phase: phase},
	}
}

func node(widgets string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "demo-node-0", UID: "node-uid"},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{"example.com/widget": resource.MustParse(widgets)}}}
}

func TestManifestCheck(t *testing.T) {
	d := newDemo(t)
	d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "b", 1), 0o644)
	expect(t, d.eval(2), "cluster.pod-file", checks.Failed, "nodeSelector", "7번째 줄", "/lab/k8s/pod.yaml", "demo.example.com/pool=b")
	d.file("k8s/pod.yaml", strings.Replace(strings.Replace(podYAML, "%s", "a", 1), "name: widget", "name: gadget", 1), 0o644)
	expect(t, d.eval(2), "cluster.pod-file", checks.Failed, "metadata.name", "widget")
	d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "a", 1)+"  bogus: 1\n", 0o644)
	expect(t, d.eval(2), "cluster.pod-file", checks.Failed, "bogus")
	d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "a", 1), 0o644)
	expect(t, d.eval(2), "cluster.pod-file", checks.Passed)
}

func TestObjectChecks(t *testing.T) {
	d := newDemo(t)
	d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "a", 1), 0o644)
	rs := d.eval(2)
	expect(t, rs, "cluster.node", checks.Failed, "Node demo-node-0")
	expect(t, rs, "cluster.pod-live", checks.Failed, "kubectl apply -f k8s/pod.yaml")
	d.put("Node", node("1"))
	d.put("Pod", pod("b", corev1.PodPending, "u1"))
	rs = d.eval(2)
	expect(t, rs, "cluster.node", checks.Failed, "광고량이 1 입니다")
	expect(t, rs, "cluster.pod-live", checks.Failed, "nodeSelector 가 다릅니다")
	d.put("Node", node("2"))
	d.put("Pod", pod("a", corev1.PodPending, "u1"))
	rs = d.eval(2)
	expect(t, rs, "cluster.node", checks.Passed)
	expect(t, rs, "cluster.pod-live", checks.Passed)

	// The cluster gone: no live check passes on stale data.
	d.store.Apply(observe.Observation{Time: d.tick(), Cluster: &observe.ClusterObs{State: observe.ClusterUnreachable, Server: "https://127.0.0.1:6443", Err: "dial tcp: refused"}})
	rs = d.eval(2)
	if _, ok := rs["cluster.node"]; ok {
		t.Error("a live check ran while the cluster is unreachable")
	}
	expect(t, rs, "cluster.cluster", checks.Unknown)
	expect(t, rs, "cluster.pod-file", checks.Passed) // files are still judged
}

func TestWitnessCheck(t *testing.T) {
	d := newDemo(t)
	d.stepOneDone()
	d.put("Pod", pod("a", corev1.PodPending, "u1"))
	expect(t, d.eval(2), "cluster.ran", checks.Failed, "Running 인 것을 아직 보지 못했습니다")
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	expect(t, d.eval(2), "cluster.ran", checks.Passed)
	// A later change does not undo what was seen.
	d.put("Pod", pod("a", corev1.PodFailed, "u1"))
	expect(t, d.eval(2), "cluster.ran", checks.Passed)
	// Deleting it does (remain), and a new pod of that name is not the one seen.
	d.del("Pod", "demo", "widget")
	expect(t, d.eval(2), "cluster.ran", checks.Failed, "지워졌습니다")
	d.put("Pod", pod("a", corev1.PodPending, "u2"))
	expect(t, d.eval(2), "cluster.ran", checks.Failed, "아직 보지 못했습니다")
}

func TestReportCheckComputesFromLive(t *testing.T) {
	d := newDemo(t)
	d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=2\nPHASE=Running\n", 0o644)
	expect(t, d.eval(2), "cluster.report", checks.Waiting, "기대값을 클러스터에서 아직 구하지 못했습니다") // nothing live yet to compute from
	d.put("Node", node("2"))
	d.put("Pod", pod("a", corev1.PodPending, "u1"))
	expect(t, d.eval(2), "cluster.report", checks.Failed, "PHASE=Running", "Pending")
	d.put("Node", node("3"))
	expect(t, d.eval(2), "cluster.report", checks.Failed, "WIDGETS=2", "3", "demo-node-0 이 광고하는 widget 수")
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=3\nPHASE=Running\n", 0o644)
	expect(t, d.eval(2), "cluster.report", checks.Passed)
	d.file("out/report.txt", "NODE=demo-node-0\nPHASE=Running\nWIDGETS=3\n", 0o644)
	expect(t, d.eval(2), "cluster.report", checks.Failed, "순서")
}

// A report with remember keeps what it proved: the cluster changing after
// the values matched (the incident fixed) leaves this content right; a
// content that never matched, or an edit, is judged live again.
func TestReportRemembersWhatItProved(t *testing.T) {
	lab := openEdited(t, func(s string) string {
		return strings.Replace(s, `why = { WIDGETS = "demo.why.widgets" }`, "why = { WIDGETS = \"demo.why.widgets\" }\nremember = true", 1)
	})
	d := &demo{t: t, lab: lab, store: observe.NewStore(), now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	d.stepOneDone()
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	d.put("Node", node("3"))
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=2\nPHASE=Running\n", 0o644)
	expect(t, d.eval(2), "cluster.report", checks.Failed, "WIDGETS=2") // never matched: nothing to keep
	d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=3\nPHASE=Running\n", 0o644)
	expect(t, d.eval(2), "cluster.report", checks.Passed)
	d.put("Node", node("2")) // fixed afterwards
	expect(t, d.eval(2), "cluster.report", checks.Passed, "같았습니다", "다시 비교합니다")
	d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=03\nPHASE=Running\n", 0o644) // edited: live again
	expect(t, d.eval(2), "cluster.report", checks.Failed, "WIDGETS=03")
	// Without the cluster synced nothing is remembered: stale data proves nothing.
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterUnreachable}})
	d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=2\nPHASE=Running\n", 0o644)
	d.eval(2)
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	d.put("Node", node("4"))
	expect(t, d.eval(2), "cluster.report", checks.Failed, "WIDGETS=2")
}

// An author's mistakes are errors with their place in lab.toml, never a
// crash: the check concerned shows the error, the rest still run.
func TestAuthoringErrors(t *testing.T) {
	lab := openEdited(t, func(bad string) string {
		bad = strings.Replace(bad, "object.status.allocatable['example.com/widget'] == '2'", "objet.status.allocatable['example.com/widget'] == '2'", 1)
		bad = strings.Replace(bad, "object.spec.nodeSelector == file.spec.nodeSelector", "object.spec.nodeSelector == file.spec.nodeSelektor +", 1)
		bad = strings.Replace(bad, `matches = '^demo-[0-9]+$'`, `matches = '^demo-[0-9+$'`, 1)
		bad = strings.Replace(bad, `fail = "demo.pod.not_run"`, `fail = "demo.pod.no_such_key"`, 1)
		return strings.Replace(bad, "executable = true", "executable = true\nkeys = [\"A\"]", 1)
	})
	var all []string
	for _, p := range lab.Problems {
		all = append(all, p.Error())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{
		"undeclared reference to 'objet'", "lab.toml:81:9:", // the CEL expression's line and column
		"lab.toml:96:61:", // a syntax error inside the expression: its column
		"정규식 `^demo-[0-9+$`",
		"demo.pod.no_such_key",
		"keys 는 file 검사가 읽지 않는 필드입니다",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems do not say %q:\n%s", want, joined)
		}
	}
	d := &demo{t: t, lab: lab, store: observe.NewStore()}
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	d.put("Node", node("2"))
	rs := d.eval(2)
	expect(t, rs, "cluster.node", checks.Error, "실습 정의에 오류가 있어")
	expect(t, rs, "cluster.pod-file", checks.Failed) // the others still run
}

// A lab.toml key the schema does not know is refused with its position.
func TestUnknownKeyIsRefused(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/kit-demo", dir)
	p := filepath.Join(dir, "lab.toml")
	raw, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(raw), "executable = true", "executabel = true", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenDir(dir)
	if err == nil || !strings.Contains(err.Error(), "executabel") || !strings.Contains(err.Error(), "lab.toml:27") {
		t.Fatalf("err = %v", err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if fi.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, fi.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// list.sum() adds integers (a report's counting); an empty list is 0.
func TestCELSum(t *testing.T) {
	for src, want := range map[string]string{"[1, 2, 5].sum()": "8", "[].map(x, int(x)).sum()": "0"} {
		e, err := compileExpr("report", src, "value")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, _, err := e.evalText(vars{cluster: newView(&observe.Snapshot{}, nil)})
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %s", src, got, err, want)
		}
	}
}

// cel.bind names a value an expression uses twice (CEL has no let).
func TestCELBind(t *testing.T) {
	e, err := compileExpr("report", "cel.bind(r, 3, r * r + r)", "value")
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := e.evalText(vars{cluster: newView(&observe.Snapshot{}, nil)}); err != nil || got != "12" {
		t.Errorf("cel.bind = %q, %v; want 12", got, err)
	}
}

// Every field a check type decodes is documented for it, and every
// field documented for it is one it decodes (the generated reference in
// docs/AUTHORING.md covers the whole schema, and says nothing a check
// cannot set).
func TestEveryCheckFieldIsDocumented(t *testing.T) {
	for _, typ := range checkTypes {
		fieldsMatchDocs(t, typ)
	}
}

// fieldsMatchDocs fails when typ's fields and its documentation differ.
func fieldsMatchDocs(t *testing.T, typ checkType) {
	t.Helper()
	kind := typ.Kind()
	c := &compiler{text: &content.Lab{}, spec: content.Check{ID: "x", Type: kind.Type}, typ: typ}
	typ.Compile(c)
	if c.decoded == nil {
		t.Fatalf("type %s does not decode its fields", kind.Type)
	}
	var documented []string
	for _, f := range kind.Fields {
		documented = append(documented, f.Name)
	}
	decoded := tomlKeys(reflect.TypeOf(c.decoded).Elem())
	slices.Sort(documented)
	slices.Sort(decoded)
	if !slices.Equal(documented, decoded) {
		t.Errorf("type %s documents fields %v but decodes %v", kind.Type, documented, decoded)
	}
}

// tomlKeys are the TOML keys of struct type t, embedded structs' included.
func tomlKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			keys = append(keys, tomlKeys(f.Type)...)
		} else if k := strings.Split(f.Tag.Get("toml"), ",")[0]; k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// An element, key or field that is not there is an absence (a report
// waits for it, a rule is false); any other runtime error is an error,
// even one whose words look alike (the strings extension's "index out
// of range" for charAt and substring).
func TestCELAbsence(t *testing.T) {
	v := vars{object: map[string]any{"spec": map[string]any{"list": []any{}}}, cluster: newView(&observe.Snapshot{}, nil)}
	for src, absent := range map[string]bool{
		"[][0]":                    true,
		"dyn([])[0]":               true,
		"{'a': 1}['b']":            true,
		"[1, 2][dyn(5)]":           true,
		"[1].filter(x, x > 1)[0]":  true,
		"object.spec.list[0].name": true,
		"cluster.list('Pod', 'demo').filter(p, p.status.phase == 'Pending')[0].metadata.name": true,
		"object.status.phase":                       true,
		"cluster.get('Pod', 'demo', 'widget').spec": true,
		"'abc'.charAt(10)":                          false,
		"'abc'.substring(5)":                        false,
		"1 / 0":                                     false,
	} {
		e, err := compileExpr("object", src, "value")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		_, gotAbsent, err := e.evalText(v)
		if gotAbsent != absent || (err != nil) == absent {
			t.Errorf("%s: absent %v, err %v; want absent %v", src, gotAbsent, err, absent)
		}
	}
	// Absence is the interpreter's own error, not its words.
	if isAbsence(errors.New("no such key: status")) {
		t.Error("an error that only reads like an absence is one")
	}
}

// openEdited opens a copy of the demo lab with lab.toml edited by edit.
func openEdited(t *testing.T, edit func(string) string) *Lab {
	t.Helper()
	return openEditedCopy(t, "testdata/kit-demo", "lab.toml", edit)
}

// openEditedCopy opens a copy of the lab in from with its file edited by
// edit.
func openEditedCopy(t *testing.T, from, file string, edit func(string) string) *Lab {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, from, dir)
	p := filepath.Join(dir, file)
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(edit(string(raw))), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

// problemOf returns the one problem whose text says what, or fails.
func problemOf(t *testing.T, lab *Lab, what string) *content.Problem {
	t.Helper()
	var found []*content.Problem
	for _, p := range lab.Problems {
		if strings.Contains(p.Msg, what) {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d problems say %q: %v", len(found), what, lab.Problems)
	}
	return found[0]
}

// Check IDs are the step's own (driver-reboot has `file` in three steps):
// a problem in a later step is placed at that step's check, and an
// expression at its own copy, not at an earlier step's.
func TestProblemIsPlacedInItsOwnStep(t *testing.T) {
	const step3 = `
[[steps]]
number = 3
id = "again"
title = "다시"
body = "steps/02.md"

[[steps.checks]]
id = "script"
type = "file"
path = "bin/run.sh"
hint = "demo.no_such_hint"

[[steps.checks]]
id = "node"
type = "object"
kind = "Node"
name = "demo-node-0"

[[steps.checks.rules]]
expr = "objet.status.allocatable['example.com/widget'] == '2'"
fail = "demo.node.widgets"
`
	lab := openEdited(t, func(s string) string {
		s = strings.Replace(s, "expr = \"object.status.allocatable['example.com/widget'] == '2'\"", "expr = \"objet.status.allocatable['example.com/widget'] == '2'\"", 1)
		return s + step3
	})
	lines := strings.Split(func() string { b, _ := lab.Text.ReadFile("lab.toml"); return string(b) }(), "\n")
	lineOf := func(text string, nth int) int {
		for i, l := range lines {
			if strings.Contains(l, text) {
				if nth--; nth == 0 {
					return i + 1
				}
			}
		}
		t.Fatalf("no %d. %q in lab.toml", nth, text)
		return 0
	}
	// A missing message key is placed at the key that names it, in the
	// step's own check.
	if p := problemOf(t, lab, "demo.no_such_hint"); p.Line != lineOf(`hint = "demo.no_such_hint"`, 1) || p.Col != 1 {
		t.Errorf("problem at %d:%d, want the second step's check's hint at %d:1: %v", p.Line, p.Col, lineOf(`hint = "demo.no_such_hint"`, 1), p)
	}
	for step, nth := range map[string]int{"2단계": 1, "3단계": 2} {
		p := problemOf(t, lab, step+" 검사 node")
		if want := lineOf("expr = \"objet", nth); p.Line != want || p.Col != 9 {
			t.Errorf("%s: problem at %d:%d, want its own expression at %d:9: %v", step, p.Line, p.Col, want, p)
		}
	}
}

// A manifest is judged from its file alone, also while the cluster is off
// or stale: its rules cannot read `cluster` (nor `file`). Such a rule is
// an authoring error at its expression, and the check never runs on live
// data.
func TestManifestRuleCannotReadCluster(t *testing.T) {
	const rule = "cluster.get('Pod', 'demo', 'widget') != null"
	lab := openEdited(t, func(s string) string {
		return strings.Replace(s, `fail = "demo.pod.selector"`, `fail = "demo.pod.selector"

[[steps.checks.rules]]
expr = "`+rule+`"
fail = "demo.pod.selector"`, 1)
	})
	p := problemOf(t, lab, "검사 pod-file")
	raw, _ := lab.Text.ReadFile("lab.toml")
	want := slices.IndexFunc(strings.Split(string(raw), "\n"), func(l string) bool { return strings.Contains(l, rule) }) + 1
	if p.Line != want || p.Col != 9 || !strings.Contains(p.Msg, "undeclared reference to 'cluster'") || !strings.Contains(p.Msg, "manifest 검사의 식은 cluster 를 볼 수 없습니다") {
		t.Errorf("problem %v, want it at %d:9 saying the manifest cannot see cluster", p, want)
	}
	d := &demo{t: t, lab: lab, store: observe.NewStore()}
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterOff}})
	d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "a", 1), 0o644)
	expect(t, d.eval(2), "cluster.pod-file", checks.Error, "실습 정의에 오류가 있어")
}

// Without remain a witness stands: a later step may delete the object or
// make another of its name, and what was seen was still seen. Only remain
// asks for the same object (TestWitnessCheck).
func TestWitnessWithoutRemainStands(t *testing.T) {
	lab := openEdited(t, func(s string) string {
		return strings.Replace(s, "held = \"object.status.phase == 'Running'\"\nremain = true\n", "held = \"object.status.phase == 'Running'\"\n", 1)
	})
	d := &demo{t: t, lab: lab, store: observe.NewStore(), now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	d.stepOneDone()
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	expect(t, d.eval(2), "cluster.ran", checks.Passed)
	d.del("Pod", "demo", "widget")
	expect(t, d.eval(2), "cluster.ran", checks.Passed)
	d.put("Pod", pod("a", corev1.PodPending, "u2"))
	expect(t, d.eval(2), "cluster.ran", checks.Passed)
}

// equals compares one value: an array or a table there is an authoring
// error at its line, and the check shows it instead of panicking when the
// file has a value of that type too.
func TestEqualsMustBeAScalar(t *testing.T) {
	lab := openEdited(t, func(s string) string { return strings.Replace(s, "equals = true", "equals = [1, 2]", 1) })
	p := problemOf(t, lab, "검사 mode")
	raw, _ := lab.Text.ReadFile("lab.toml")
	want := slices.Index(strings.Split(string(raw), "\n"), "equals = [1, 2]") + 1
	if p.Line != want || p.Col != 1 || !strings.Contains(p.Msg, "배열 [1, 2]") {
		t.Errorf("problem %v, want it at %d:1 naming the array", p, want)
	}
	d := &demo{t: t, lab: lab, store: observe.NewStore()}
	d.file("etc/app.toml", "[server]\nname = \"demo-1\"\n[server.\"listen.tcp\"]\nenabled = [1, 2]\n", 0o644)
	expect(t, d.eval(1), "files.mode", checks.Error, "실습 정의에 오류가 있어")
}

// An object check waits for its file to decode, saying why it does not
// (what the manifest check would say) and what was seen where.
func TestObjectWaitsForFileSayingWhy(t *testing.T) {
	d := newDemo(t)
	d.put("Pod", pod("a", corev1.PodPending, "u1"))
	d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "a", 1)+"  bogus: 1\n", 0o644)
	expect(t, d.eval(2), "cluster.pod-live", checks.Waiting, "읽을 수 있게 되면 클러스터와 비교합니다", "Pod 에 없는 필드가 있습니다", "spec.bogus", "모르는 필드 spec.bogus", "k8s/pod.yaml:12")
	d.store.Apply(observe.Observation{Time: d.tick(), File: &observe.FileObs{Path: "k8s/pod.yaml", State: observe.FileMissing}})
	expect(t, d.eval(2), "cluster.pod-live", checks.Waiting, "파일이 없습니다: /lab/k8s/pod.yaml", "파일 없음")
}

// A report value that cannot be computed yet (an object, a field or a
// list element not there) waits; one whose expression fails otherwise is
// the author's error, shown as such and not as a wait.
func TestReportValueErrors(t *testing.T) {
	const phase = "\"cluster.get('Pod', 'demo', 'widget').status.phase\""
	for value, want := range map[string]checks.Status{
		"cluster.list('Pod', 'demo').filter(p, p.status.phase == 'Failed')[0].status.phase": checks.Waiting,
		"cluster.get('Pod', 'demo', 'widget').status.phase.substring(99)":                   checks.Error,
	} {
		lab := openEdited(t, func(s string) string {
			return strings.Replace(s, phase, strconv.Quote(value), 1)
		})
		d := &demo{t: t, lab: lab, store: observe.NewStore()}
		d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
		d.put("Node", node("2"))
		d.put("Pod", pod("a", corev1.PodRunning, "u1"))
		d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=2\nPHASE=Running\n", 0o644)
		words := []string{"PHASE 의 기대값을 클러스터에서 아직 구하지 못했습니다"}
		if want == checks.Error {
			words = []string{"PHASE 의 기대값을 구하는 식", "substring(99)", "index out of range: 99", "실습을 만든 사람에게"}
		}
		expect(t, d.eval(2), "cluster.report", want, words...)
	}
}

// failedScheduling is a FailedScheduling event recorded for the widget pod.
func failedScheduling(name, uid, message string, at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: "demo"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "demo", Name: "widget", UID: types.UID(uid)},
		Reason:         "FailedScheduling", Message: message, LastTimestamp: metav1.NewTime(at),
	}
}

// Without the lab's own texts a witness says what it waits to see: the
// held condition, or the event's reason. An event witness is kept from
// the oldest such event recorded for that very pod.
func TestWitnessDefaultsNameTheCondition(t *testing.T) {
	lab := openEdited(t, func(s string) string {
		s = strings.Replace(s, "remain = true\nfail = \"demo.pod.not_run\"\n", "remain = true\n", 1)
		return s + eventWitness
	})
	d := &demo{t: t, lab: lab, store: observe.NewStore(), now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	d.stepOneDone()
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	d.put("Pod", pod("a", corev1.PodPending, "u1"))
	rs := d.eval(2)
	expect(t, rs, "cluster.ran", checks.Failed, "Pod demo/widget 에서 `object.status.phase == 'Running'` 이 참인 것을 아직 보지 못했습니다")
	if e := rs["cluster.ran"].Expected; !strings.Contains(e, "`object.status.phase == 'Running'` 이 참인 것") {
		t.Errorf("expected %q names no condition", e)
	}
	expect(t, rs, "cluster.unschedulable", checks.Failed, "reason 이 FailedScheduling 인 이벤트가 기록된 것을 아직 보지 못했습니다")
	if e := rs["cluster.unschedulable"].Expected; !strings.Contains(e, "reason 이 FailedScheduling 인 이벤트") {
		t.Errorf("expected %q names no event", e)
	}
	d.put("Event", failedScheduling("b", "u0", "an older pod's", d.now.Add(-time.Hour)))
	d.put("Event", failedScheduling("c", "u1", "0/1 nodes are available: later", d.now.Add(time.Minute)))
	d.put("Event", failedScheduling("d", "u1", "0/1 nodes are available: first", d.now))
	expect(t, d.eval(2), "cluster.unschedulable", checks.Passed)
	if f, _ := d.witness.Get("cluster/unschedulable"); f.Value != "0/1 nodes are available: first" || f.UID != "u1" {
		t.Errorf("witnessed %+v, want the oldest event of pod u1", f)
	}
}

// A held condition that fails to evaluate (not an absent field) is the
// author's error, shown on the check, not an event that never happens.
func TestWitnessHeldErrorIsShown(t *testing.T) {
	lab := openEdited(t, func(s string) string {
		return strings.Replace(s, "held = \"object.status.phase == 'Running'\"", "held = \"object.status.phase.substring(99) == 'Running'\"", 1)
	})
	d := &demo{t: t, lab: lab, store: observe.NewStore()}
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	expect(t, d.eval(2), "cluster.ran", checks.Error, "substring(99)", "index out of range: 99", "실습을 만든 사람에게")
}

// A YAML field's file that is not YAML reads as a manifest's does: the
// line when the parser names one, and without one no "0번째 줄".
func TestYAMLFieldSyntax(t *testing.T) {
	d := newDemo(t)
	d.file("etc/values.yaml", "spec:\n  replicas: [3\n", 0o644)
	expect(t, d.eval(1), "files.replicas", checks.Failed, "YAML 로 읽을 수 없습니다: /lab/etc/values.yaml 의 2번째 줄", "etc/values.yaml:2")
	d.file("etc/values.yaml", "spec: replicas: 3\n", 0o644) // the parser names no line 1
	rs := d.eval(1)
	expect(t, rs, "files.replicas", checks.Failed, "YAML 로 읽을 수 없습니다: /lab/etc/values.yaml. 값이 올 자리에 또 '키: 값' 이 왔습니다", "mapping values are not allowed")
	if r := rs["files.replicas"]; strings.Contains(r.Message, "0번째 줄") || r.Where != "etc/values.yaml" {
		t.Errorf("a syntax error without a line: %q at %q", r.Message, r.Where)
	}
}

// cluster.list is in the snapshot's order: by namespace, then name.
func TestClusterListIsSorted(t *testing.T) {
	store := observe.NewStore()
	for _, k := range [][2]string{{"demo", "b"}, {"a-b", "x"}, {"demo", "a"}, {"a", "z"}} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: k[0], Name: k[1]}}
		store.Apply(observe.Observation{Object: &observe.ObjectObs{Op: observe.OpUpsert, Kind: "Pod", Namespace: k[0], Name: k[1], Object: p}})
	}
	e, err := compileExpr("report", "cluster.list('Pod', '').map(p, p.metadata.namespace + '/' + p.metadata.name)", "value")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := e.evalText(vars{cluster: newView(store.Snapshot(), nil)})
	if want := "a/z, a-b/x, demo/a, demo/b"; err != nil || got != want {
		t.Errorf("cluster.list = %q, %v; want %s", got, err, want)
	}
}

// A step with no checks is a problem naming the step, in Korean from
// content, and evaluates to an error result.
func TestStepWithoutChecks(t *testing.T) {
	lab := openEdited(t, func(s string) string {
		return s + "\n[[steps]]\nnumber = 3\nid = \"empty\"\ntitle = \"빈 단계\"\nbody = \"steps/02.md\"\n"
	})
	p := problemOf(t, lab, "3단계(empty): 검사가 없습니다")
	ev := lab.Steps[2].Eval(checks.Input{Lab: lab.Text, Snap: &observe.Snapshot{}})
	if len(ev.Checks) != 1 || ev.Checks[0].Status != checks.Error || !strings.Contains(ev.Checks[0].Message, p.Msg) {
		t.Errorf("the empty step evaluates to %+v", ev.Checks)
	}
}

// A witness counts an observation only if every earlier step had passed
// at that moment: the pod Running before step 1 was done is no evidence
// for step 2, nor is a FailedScheduling event from before; the same seen
// after step 1 passed is. With any_time the order does not matter.
func TestWitnessesKeepTheLabsOrder(t *testing.T) {
	withEvent := func(s string) string {
		return s + eventWitness
	}
	d := &demo{t: t, lab: openEdited(t, withEvent), store: observe.NewStore(), now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	d.put("Event", failedScheduling("e", "u1", "0/1 nodes are available: early", d.now))
	rs := d.eval(2)
	expect(t, rs, "cluster.ran", checks.Failed, "아직 보지 못했습니다")
	expect(t, rs, "cluster.unschedulable", checks.Failed, "아직 보지 못했습니다")
	// Step 1 done while the pod is no longer Running and the event is old:
	// neither was seen in order.
	d.put("Pod", pod("a", corev1.PodPending, "u1"))
	d.stepOneDone()
	rs = d.eval(2)
	expect(t, rs, "cluster.ran", checks.Failed, "아직 보지 못했습니다")
	expect(t, rs, "cluster.unschedulable", checks.Failed, "아직 보지 못했습니다")
	if _, known := d.witness.Get("cluster/ran"); known {
		t.Fatal("the out-of-order Running was remembered")
	}
	// Seen again in order: evidence.
	d.put("Event", failedScheduling("e", "u1", "0/1 nodes are available: again", d.tick()))
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	rs = d.eval(2)
	expect(t, rs, "cluster.ran", checks.Passed)
	expect(t, rs, "cluster.unschedulable", checks.Passed)
	if f, _ := d.witness.Get("cluster/unschedulable"); f.Value != "0/1 nodes are available: again" {
		t.Errorf("witnessed %q, want the event that happened in order", f.Value)
	}

	// any_time = true: the order does not matter.
	anyTime := func(s string) string {
		return strings.Replace(s, "held = \"object.status.phase == 'Running'\"\n", "held = \"object.status.phase == 'Running'\"\nany_time = true\n", 1)
	}
	d = &demo{t: t, lab: openEdited(t, anyTime), store: observe.NewStore(), now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	d.store.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	expect(t, d.eval(2), "cluster.ran", checks.Passed)
}

// eventWitness is a witness of step 2 that waits for the widget pod's
// FailedScheduling event.
const eventWitness = `
[[steps.checks]]
id = "unschedulable"
type = "witness"
kind = "Pod"
namespace = "demo"
name = "widget"
event = "FailedScheduling"
`
