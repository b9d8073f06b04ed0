package trace

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/files"
)

// echoLab is the GPU incident lab plus a ninth step that passes once the
// main config is present and shows, as its observed facts, everything in
// the snapshot: any detail lost between recording and replay changes its
// result.
func echoLab(t *testing.T) (*content.Lab, []checks.Step) {
	t.Helper()
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	l := *lab
	l.Steps = append(append([]content.Step(nil), lab.Steps...), content.Step{Number: 9, ID: "echo", Title: "echo"})
	steps := append(append([]checks.Step(nil), labkittest.GPUSteps(t)...), checks.Step{
		Number: 9, ID: "echo",
		Files: []string{"etc/containerd/config.toml", "bin/check-runtime.sh", "out", "out/merge.txt"},
		Eval:  echoEval,
	})
	return &l, steps
}

func echoEval(in checks.Input) checks.StepEval {
	s := in.Snap
	var facts []checks.Fact
	add := func(label, format string, args ...any) {
		facts = append(facts, checks.Fact{Label: label, Value: fmt.Sprintf(format, args...)})
	}
	for _, p := range sortedKeys(s.Files) {
		f := s.Files[p]
		add("file "+p, "%s %x %d %v %q", f.State, sha256.Sum256(f.Content), f.Size, f.Mode, f.Err)
	}
	for _, sc := range sortedKeys(s.Scripts) {
		for _, sn := range sortedKeys(s.Scripts[sc]) {
			add("script "+sc+" "+sn, "%+v", s.Scripts[sc][sn])
		}
	}
	var objs []string
	for k, o := range s.Objects {
		m := o.(metav1.Object)
		objs = append(objs, fmt.Sprintf("%s %s/%s rv=%s uid=%s labels=%v", k.Kind, k.Namespace, k.Name, m.GetResourceVersion(), m.GetUID(), m.GetLabels()))
	}
	sort.Strings(objs)
	add("objects", "%v", objs)
	add("cluster", "%+v", s.Cluster)
	var synced []string
	for name := range s.Synced {
		if name != SourceName { // the replay source's own, by design
			synced = append(synced, name)
		}
	}
	sort.Strings(synced)
	add("synced", "%v", synced)
	st := checks.Failed
	if s.File("etc/containerd/config.toml").State == observe.FilePresent {
		st = checks.Passed
	}
	return checks.StepEval{Checks: []checks.Result{{ID: "echo", Status: st, Message: "echo"}}, Observed: facts}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Record a live session (the real file watcher over a temp root, plus
// cluster objects and script runs applied as their sources would), then
// replay the trace through a fresh engine: after every record the results
// equal what the live engine reported after that record.
func TestRecordReplayRoundTrip(t *testing.T) {
	lab, steps := echoLab(t)
	root := t.TempDir()
	tracePath := filepath.Join(t.TempDir(), "session.jsonl")
	rec, err := Create(tracePath, Header{Lab: lab.ID, Root: root, Labmate: "test"})
	if err != nil {
		t.Fatal(err)
	}
	live := engine.New(engine.Config{Lab: lab, Steps: steps, Root: root, Tap: rec.Record})
	src := files.New(files.Options{Root: root, Paths: live.Files(), Debounce: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := make(chan observe.Observation, 64)
	go func() { _ = src.Run(ctx, in) }()

	var liveReports []engine.Report
	apply := func(o observe.Observation) {
		live.Apply(o)
		liveReports = append(liveReports, live.Evaluate())
	}
	// waitFor applies what the watcher sends until ok says the awaited
	// observation came.
	waitFor := func(what string, ok func(observe.Observation) bool) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case o := <-in:
				apply(o)
				if ok(o) {
					return
				}
			case <-timeout:
				t.Fatalf("the watcher never reported %s", what)
			}
		}
	}
	fileIs := func(path string, st observe.FileState) func(observe.Observation) bool {
		return func(o observe.Observation) bool {
			return o.File != nil && o.File.Path == path && o.File.State == st
		}
	}
	write := func(rel, body string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		waitFor(rel, func(o observe.Observation) bool {
			return o.File != nil && o.File.Path == rel && string(o.File.Content) == body && o.File.Mode.Perm() == mode
		})
	}

	waitFor("its initial state", func(o observe.Observation) bool { return o.Synced != nil })
	// The lab's reference answers, so the real steps 1 and 2 turn green.
	for _, rel := range []string{"etc/containerd/config.toml", "etc/containerd/conf.d/99-nvidia.toml"} {
		body, err := os.ReadFile(filepath.Join("..", "content", "labs", lab.ID, "reference", rel))
		if err != nil {
			t.Fatal(err)
		}
		write(rel, string(body), 0o644)
	}
	write("etc/containerd/config.toml", "version = \"two\"\n[broken\n", 0o644)
	write("out/merge.txt", "MAIN_RUNTIMES=runc\nDROPIN_RUNTIMES=nvidia\nCONFLICT=yes\n", 0o644)
	write("bin/check-runtime.sh", "#!/bin/sh\ncontainerd config dump | grep -q runtimes.nvidia\n", 0o755)
	apply(observe.Observation{Time: time.Now(), Script: &observe.ScriptObs{Script: "bin/check-runtime.sh", Scenario: "nvidia", ExitCode: 0,
		FakeArgv: [][]string{{"containerd", "config", "dump"}}, Output: "ok\n", Duration: 3 * time.Millisecond}})
	apply(observe.Observation{Time: time.Now(), Cluster: &observe.ClusterObs{State: observe.ClusterSynced, Server: "https://127.0.0.1:6443", Version: "v1.34.1"}})
	for _, obj := range labObjects() {
		m := obj.(metav1.Object)
		apply(observe.Observation{Time: time.Now(), Object: &observe.ObjectObs{Op: observe.OpUpsert, Kind: reflectKind(obj), Namespace: m.GetNamespace(), Name: m.GetName(), Object: obj}})
	}
	apply(observe.Observation{Time: time.Now(), Object: &observe.ObjectObs{Op: observe.OpDelete, Kind: "Pod", Namespace: "gpu-lab", Name: "cuda-probe"}})
	write("bin/check-runtime.sh", "#!/bin/sh\nexit 1\n", 0o600)
	if err := os.Remove(filepath.Join(root, "out/merge.txt")); err != nil {
		t.Fatal(err)
	}
	waitFor("the removed merge.txt", fileIs("out/merge.txt", observe.FileMissing))
	if err := os.Rename(filepath.Join(root, "etc"), filepath.Join(root, "etc.bak")); err != nil {
		t.Fatal(err)
	}
	waitFor("the moved config", fileIs("etc/containerd/config.toml", observe.FileMissing))
	cancel()
	if err := rec.Close(); err != nil || rec.Err() != nil {
		t.Fatalf("recorder: %v %v", err, rec.Err())
	}

	tr, err := Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != len(liveReports) || len(tr.Warnings) != 0 {
		t.Fatalf("trace has %d records (%d warnings), live applied %d", len(tr.Records), len(tr.Warnings), len(liveReports))
	}
	replay := engine.New(engine.Config{Lab: lab, Steps: steps, Root: tr.Header.Root})
	statuses := map[string]bool{}
	for i, r := range tr.Records {
		replay.Apply(r.Obs)
		got, want := replay.Evaluate(), liveReports[i]
		if !reflect.DeepEqual(got.Steps, want.Steps) || !got.Time.Equal(want.Time) || !reflect.DeepEqual(got.Cluster, want.Cluster) {
			t.Fatalf("after record %d (line %d) replay differs from live:\n%s", i+1, r.Line, diffSteps(want.Steps, got.Steps))
		}
		statuses[fmt.Sprint(got.Step(9).Status)] = true
	}
	if !statuses["passed"] || !statuses["failed"] {
		t.Fatalf("the echo step never changed (%v): the session did not exercise anything", statuses)
	}

	// The same trace through the replay source and engine.Start ends the
	// same. The source is done once it handed the last record over; the
	// engine may still be evaluating it (for as long as a loaded machine
	// makes it), so the reports are read until they end like the live
	// run, then watched a while longer for a later change.
	e := engine.New(engine.Config{Lab: lab, Steps: steps, Root: tr.Header.Root})
	src2 := ReplaySource(tr, ReplayOptions{Speed: Instant})
	out, stop := e.Start(context.Background(), []observe.Source{src2})
	defer stop()
	final := liveReports[len(liveReports)-1]
	var last engine.Report
	endsLikeLive := func() bool { return last.Ready && reflect.DeepEqual(last.Steps, final.Steps) }
	deadline := time.After(30 * time.Second)
	for !src2.Progress().Done || !endsLikeLive() {
		select {
		case last = <-out:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			if !src2.Progress().Done {
				t.Fatalf("the replay source never finished (progress %+v)", src2.Progress())
			}
			t.Fatalf("engine.Start over the replay source ended elsewhere (ready %v):\n%s", last.Ready, diffSteps(final.Steps, last.Steps))
		}
	}
	quiet := time.After(300 * time.Millisecond)
	for {
		select {
		case last = <-out:
			if !endsLikeLive() {
				t.Fatalf("engine.Start over the replay source went on elsewhere (ready %v):\n%s", last.Ready, diffSteps(final.Steps, last.Steps))
			}
			continue
		case <-quiet:
		}
		break
	}
}

func diffSteps(want, got []engine.StepResult) string {
	var b strings.Builder
	for i := range want {
		if i >= len(got) {
			fmt.Fprintf(&b, "step %d missing\n", want[i].Number)
			continue
		}
		if !reflect.DeepEqual(want[i], got[i]) {
			fmt.Fprintf(&b, "step %d:\n live   %+v\n replay %+v\n", want[i].Number, want[i], got[i])
		}
	}
	return b.String()
}

// BenchmarkOpenReference: reading and decoding the embedded reference run.
func BenchmarkOpenReference(b *testing.B) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ReferenceOf(lab); err != nil {
			b.Fatal(err)
		}
	}
}
