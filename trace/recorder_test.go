package trace

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/labhub/labmate/observe"
)

var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// labObjects are objects of every kind the lab watches, with the fields
// the checks read.
func labObjects() []runtime.Object {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	return []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gpu-lab", UID: "u1"}},
		&corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "lab-node-0", Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
			Status: corev1.NodeStatus{
				Capacity:    corev1.ResourceList{gpu: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("32Gi")},
				Allocatable: corev1.ResourceList{gpu: resource.MustParse("4"), corev1.ResourceCPU: resource.MustParse("16")},
			},
		},
		&corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "cuda-probe", Namespace: "gpu-lab", UID: "p1", CreationTimestamp: metav1.NewTime(t0)},
			Spec: corev1.PodSpec{RuntimeClassName: ptr("nvidia"), Containers: []corev1.Container{{
				Name: "cuda", Image: "nvidia/cuda",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{gpu: resource.MustParse("1")}},
			}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
				Message: "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.", LastTransitionTime: metav1.NewTime(t0.Add(time.Second)),
			}}},
		},
		&corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: "cuda-probe.1", Namespace: "gpu-lab"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "gpu-lab", Name: "cuda-probe", UID: "p1"},
			Reason:         "FailedScheduling", Message: "0/3 nodes are available", Type: "Warning", Count: 3,
		},
		&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "nvidia"}, Handler: "nvidia"},
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "time-slicing-config", Namespace: "gpu-operator"},
			Data:       map[string]string{"any": "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 5\n"},
		},
		&appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: "nvidia-container-toolkit", Namespace: "gpu-operator", Generation: 2},
			Spec: appsv1.DaemonSetSpec{
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "toolkit", Image: "nvcr.io/nvidia/k8s/container-toolkit:v1.17.0",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Gi")}},
				}}}},
			},
			Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, UpdatedNumberScheduled: 1, NumberReady: 2},
		},
		&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "nvidia-container-toolkit-1", Namespace: "gpu-operator"}, Revision: 1},
	}
}

func ptr[T any](v T) *T { return &v }

func TestObjectsRoundTrip(t *testing.T) {
	for _, obj := range labObjects() {
		raw, err := encodeObject(obj)
		if err != nil {
			t.Fatalf("%T: %v", obj, err)
		}
		if !bytes.Contains(raw, []byte(`"apiVersion"`)) || !bytes.Contains(raw, []byte(`"kind"`)) {
			t.Fatalf("%T encoded without apiVersion/kind: %s", obj, raw)
		}
		back, err := decodeObject(raw)
		if err != nil {
			t.Fatalf("%T: %v", obj, err)
		}
		if !equality.Semantic.DeepEqual(obj, back) {
			t.Fatalf("%T changed on the way:\n%#v\n%#v", obj, obj, back)
		}
	}
}

func TestUnknownObjectTypesStayUnstructured(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
		"metadata": map[string]any{"name": "cluster-policy"},
		"spec":     map[string]any{"devicePlugin": map[string]any{"enabled": true}},
	}}
	raw, err := encodeObject(u)
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(u, back) {
		t.Fatalf("got %#v", back)
	}
}

// observations of every kind, as a live session produces them.
func sampleObservations() []observe.Observation {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	obs := []observe.Observation{
		{Time: at(1), File: &observe.FileObs{Path: "etc/containerd/config.toml", State: observe.FilePresent, Content: []byte("version = 2\n\x00\xff"), Size: 14, Mode: 0o644}},
		{Time: at(2), File: &observe.FileObs{Path: "bin/check-runtime.sh", State: observe.FileUnreadable, Err: "permission denied", Mode: 0o700}},
		{Time: at(3), File: &observe.FileObs{Path: "out", State: observe.FileIsDir, Mode: 0o755 | 1<<31}},
		{Time: at(4), File: &observe.FileObs{Path: "out/merge.txt", State: observe.FileMissing}},
		{Time: at(5), Synced: &observe.SyncedObs{Source: "files"}},
		{Time: at(6), Cluster: &observe.ClusterObs{State: observe.ClusterSynced, Server: "https://127.0.0.1:1", Context: "kwok-lab", Version: "v1.34.1"}},
		{Time: at(6), Cluster: &observe.ClusterObs{State: observe.ClusterError, Server: "https://127.0.0.1:1", Err: "list nodes: 403 Forbidden (x)",
			Refusals: []observe.Refusal{{Verb: "list", Resource: "nodes", Code: 403}}}},
		{Time: at(7), Script: &observe.ScriptObs{Script: "bin/check-runtime.sh", ContentSHA: "ab", Scenario: "runc-only", ExitCode: -1, TimedOut: true,
			FakeArgv: [][]string{{"containerd", "config", "dump"}}, Output: "한글 출력\n", Truncated: true, Duration: 1500 * time.Millisecond}},
		{Time: at(8), Script: &observe.ScriptObs{Script: "bin/check-runtime.sh", ContentSHA: "ab", Scenario: "nvidia", ExitCode: -1,
			StartErr: "tempdir: /nonexistent: no such file or directory", Internal: true}},
		{Time: at(9), Script: &observe.ScriptObs{Script: "bin/check-runtime.sh", ContentSHA: "ab", Scenario: "nvidia", ExitCode: 2,
			Sandbox: "namespaces", Traps: &observe.ScriptTraps{Opened: []string{"/etc/a.conf"}, Called: []string{"/usr/bin/x", "/bin/x"}},
			Seccomp: observe.SeccompNotify, Denied: []string{"mount", "unshare"},
			Memory: &observe.ScriptMemory{Limit: 256 << 20, Peak: 200 << 20, Refused: true}, Limit: 5 * time.Second}},
		{Time: at(10), Script: &observe.ScriptObs{Script: "bin/check-runtime.sh", ContentSHA: "ab", Scenario: "runc-only", ExitCode: -1,
			StartErr: "exec format error", Start: &observe.StartFailure{Errno: "ENOEXEC"}, Seccomp: observe.SeccompOff}},
	}
	for i, obj := range labObjects() {
		m := obj.(metav1.Object)
		kind := reflectKind(obj)
		obs = append(obs, observe.Observation{Time: at(100 + i), Object: &observe.ObjectObs{Op: observe.OpUpsert, Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName(), Object: obj}})
	}
	obs = append(obs, observe.Observation{Time: at(200), Object: &observe.ObjectObs{Op: observe.OpDelete, Kind: "Pod", Namespace: "gpu-lab", Name: "cuda-probe", Object: labObjects()[2]}})
	obs = append(obs, observe.Observation{Time: at(201), Object: &observe.ObjectObs{Op: observe.OpDelete, Kind: "Namespace", Name: "gone"}})
	return obs
}

func reflectKind(obj runtime.Object) string {
	gvks, _, _ := scheme.Scheme.ObjectKinds(obj)
	return gvks[0].Kind
}

// countingWriter counts Write calls.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

func TestRecordThenReadEveryKind(t *testing.T) {
	var w countingWriter
	rec, err := NewRecorder(&w, Header{Lab: "gpu-incident", Root: "/root/gpuop", Started: t0, Labmate: "test"})
	if err != nil {
		t.Fatal(err)
	}
	obs := sampleObservations()
	for i, o := range obs {
		rec.Record(o)
		if w.writes != i+2 { // the header, then one write per record
			t.Fatalf("after record %d: %d writes", i+1, w.writes)
		}
	}
	if rec.Err() != nil || rec.Count() != len(obs) {
		t.Fatalf("err %v count %d", rec.Err(), rec.Count())
	}
	tr, err := Read("mem", &w.Buffer)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Format != Format || tr.Header.Version != Version || !tr.Header.Started.Equal(t0) {
		t.Fatalf("header %+v", tr.Header)
	}
	if len(tr.Records) != len(obs) {
		t.Fatalf("%d records, want %d", len(tr.Records), len(obs))
	}
	for i, r := range tr.Records {
		assertSameObs(t, i, obs[i], r.Obs)
		if want := obs[i].Time.Sub(t0); r.At != want.Truncate(time.Millisecond) {
			t.Errorf("record %d at %v, want %v", i, r.At, want)
		}
	}
}

func assertSameObs(t *testing.T, i int, want, got observe.Observation) {
	t.Helper()
	if !want.Time.Equal(got.Time) {
		t.Errorf("record %d: time %v, want %v", i, got.Time, want.Time)
	}
	w, g := want, got
	w.Time, g.Time = time.Time{}, time.Time{}
	if w.Object != nil && g.Object != nil {
		if !equality.Semantic.DeepEqual(w.Object.Object, g.Object.Object) {
			t.Errorf("record %d: object differs:\nwant %#v\n got %#v", i, w.Object.Object, g.Object.Object)
		}
		wo, gob := *w.Object, *g.Object
		wo.Object, gob.Object = nil, nil
		w.Object, g.Object = &wo, &gob
	}
	if !reflect.DeepEqual(w, g) {
		t.Errorf("record %d differs:\nwant %s\n got %s", i, describe(w), describe(g))
	}
}

func describe(o observe.Observation) string {
	switch {
	case o.File != nil:
		return "file " + strconv.Quote(o.File.Path) + " " + string(o.File.State) + " " + strconv.Quote(string(o.File.Content)) + " " + o.File.Mode.String()
	case o.Object != nil:
		return "object " + o.Object.Kind + " " + o.Object.Name
	}
	return "other"
}

func TestRecorderStopsAfterWriteError(t *testing.T) {
	fw := &failingWriter{okWrites: 2}
	rec, err := NewRecorder(fw, Header{Lab: "x"})
	if err != nil {
		t.Fatal(err)
	}
	obs := sampleObservations()
	for _, o := range obs[:4] {
		rec.Record(o)
	}
	if rec.Err() == nil || rec.Count() != 1 || fw.calls != 3 {
		t.Fatalf("err %v count %d calls %d", rec.Err(), rec.Count(), fw.calls)
	}
}

type failingWriter struct{ okWrites, calls int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	if w.calls > w.okWrites {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestRecorderLeavesOutUnencodable(t *testing.T) {
	var b bytes.Buffer
	rec, _ := NewRecorder(&b, Header{Lab: "x", Started: t0})
	rec.Record(observe.Observation{Time: t0, Object: &observe.ObjectObs{Op: observe.OpUpsert, Kind: "Weird", Name: "w", Object: &weird{}}})
	rec.Record(sampleObservations()[0])
	if rec.Err() == nil || rec.Count() != 1 {
		t.Fatalf("err %v count %d", rec.Err(), rec.Count())
	}
	tr, err := Read("mem", &b)
	if err != nil || len(tr.Records) != 1 {
		t.Fatalf("err %v, %d records", err, len(tr.Records))
	}
}

type weird struct{ metav1.TypeMeta }

func (w *weird) DeepCopyObject() runtime.Object { return &weird{} }

// A recorder killed (SIGKILL) while writing leaves a trace that reads
// without error: every record is one write of one whole line.
func TestRecorderKilledMidStream(t *testing.T) {
	if os.Getenv("TRACE_RECORD_FOREVER") != "" {
		rec, err := Create(os.Getenv("TRACE_RECORD_FOREVER"), Header{Lab: "gpu-incident"})
		if err != nil {
			os.Exit(3)
		}
		big := observe.Observation{File: &observe.FileObs{Path: "big", State: observe.FilePresent, Content: bytes.Repeat([]byte("x"), 256<<10)}}
		for i := 0; ; i++ {
			o := sampleObservations()[i%4]
			if i%3 == 0 {
				o = big
			}
			o.Time = time.Now()
			rec.Record(o)
		}
	}
	path := filepath.Join(t.TempDir(), "killed.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecorderKilledMidStream$")
	cmd.Env = append(os.Environ(), "TRACE_RECORD_FOREVER="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 4<<20 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("recorder wrote too little")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	tr, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) < 10 {
		t.Fatalf("only %d records", len(tr.Records))
	}
	for _, w := range tr.Warnings {
		if w.Code != "truncated" {
			t.Fatalf("unexpected warning %v", w)
		}
	}
	t.Logf("%d records, %d warnings", len(tr.Records), len(tr.Warnings))
}

func TestCreateTruncatesAndAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte("old junk\nmore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := Create(path, Header{Lab: "gpu-incident", Started: t0})
	if err != nil {
		t.Fatal(err)
	}
	rec.Record(sampleObservations()[0])
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	rec.Record(sampleObservations()[1]) // after Close: dropped, no panic
	tr, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != 1 || rec.Err() != nil {
		t.Fatalf("%d records, err %v", len(tr.Records), rec.Err())
	}
}
