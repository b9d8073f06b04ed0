package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/termtext/termtexttest"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/state"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; rerun with -update if the change is meant.\n--- got ---\n%s", path, got)
	}
}

var (
	t0  = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	kst = time.FixedZone("KST", 9*3600)
)

func lab(t *testing.T) *content.Lab {
	t.Helper()
	l, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// referenceRun is what an evaluation of the reference run looks like: the
// values LAB-SPEC.md names for each step, as checks report them, with step
// 8 still open so the "remaining" section has something in it.
func referenceRun(l *content.Lab) engine.Report {
	pass := func(id, msg string) checks.Result { return checks.Result{ID: id, Status: checks.Passed, Message: msg} }
	obs := map[int][]checks.Fact{
		1: {{Label: "런타임", Value: "runc"}, {Label: "SystemdCgroup", Value: "true (boolean, 12번째 줄)"}},
		2: {{Label: "런타임", Value: "nvidia"}, {Label: "주 설정의 imports 가 이 파일을 포함하는가", Value: "예 (conf.d/*.toml)"}},
		3: {{Label: "MAIN_RUNTIMES", Value: "runc"}, {Label: "DROPIN_RUNTIMES", Value: "nvidia"}, {Label: "CONFLICT", Value: "yes"},
			{Label: "CONFLICT_TABLE", Value: `plugins."io.containerd.grpc.v1.cri".containerd.runtimes`}, {Label: "LOADED_RUNTIMES", Value: "runc"}},
		4: {{Label: "nvidia 시나리오 종료 코드", Value: "0"}, {Label: "runc 시나리오 종료 코드", Value: "1"}, {Label: "가짜 containerd 가 받은 인자", Value: "config dump"}},
		5: {{Label: "PodScheduled", Value: "False / Unschedulable"}, {Label: "스케줄러의 메시지", Value: "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."}},
		6: {{Label: "노드별 GPU", Value: "NAME         GPU\nlab-node-0   4\nlab-node-1   <none>\nlab-node-2   <none>"}},
		7: {{Label: "슬롯 계산", Value: "PHYSICAL_GPUS=4\nREPLICAS=5\nADVERTISED=20\nVRAM_PER_GPU_GIB=40\nVRAM_GUARANTEED_PER_SLOT_GIB=0\nVRAM_SHARED_PER_GPU_GIB=40\nISOLATION=none"}},
		8: {{Label: "DaemonSet 상태", Value: "desired=3 updated=1 ready=2"}, {Label: "v1.16.2 파드", Value: "2"}},
	}
	rep := engine.Report{Lab: l.ID, Title: l.Title, Root: "/root/gpuop", Ready: true, Time: t0.Add(3 * time.Hour),
		Cluster: observe.ClusterObs{State: observe.ClusterSynced, Server: "https://127.0.0.1:32766", Context: "kwok-labmate", Version: "v1.34.12"}}
	for _, s := range l.Steps {
		sr := engine.StepResult{Number: s.Number, ID: s.ID, Title: s.Title, Status: checks.Passed, Observed: obs[s.Number],
			Checks: []checks.Result{pass(s.ID+".file", "파일이 기대한 대로입니다.")}}
		if s.Number == 8 {
			sr.Status = checks.Failed
			sr.Checks = append(sr.Checks, checks.Result{ID: "rollout-stall.numbers", Status: checks.Failed,
				Message:  "rollout.txt 의 READY 가 3 이지만 DaemonSet 의 numberReady 는 2 입니다.\nkubectl -n gpu-operator get ds nvidia-container-toolkit 로 다시 보세요.",
				Expected: "READY=2", Observed: "READY=3", Where: "out/rollout.txt:3"})
		}
		rep.Steps = append(rep.Steps, sr)
	}
	return rep
}

func referenceProgress() state.Progress {
	p := state.Progress{StartedAt: t0, CurrentStep: 8, PassedAt: map[int]time.Time{},
		HintsSeen: map[int]int{3: 1, 7: 2}, SolutionSeen: map[int]bool{4: true}}
	for n := 1; n <= 7; n++ {
		p.PassedAt[n] = t0.Add(time.Duration(n*17) * time.Minute)
	}
	return p
}

func TestMarkdownGoldenReferenceRun(t *testing.T) {
	l := lab(t)
	r := Build(l, referenceRun(l), referenceProgress(), t0.Add(3*time.Hour))
	golden(t, "reference-run.md", r.Markdown(kst))
}

func TestBuildCountsAndJoins(t *testing.T) {
	l := lab(t)
	r := Build(l, referenceRun(l), referenceProgress(), t0)
	if r.Passed != 7 || r.Total != 8 {
		t.Errorf("passed %d of %d, want 7 of 8", r.Passed, r.Total)
	}
	s7 := r.Steps[6]
	if s7.Hints != 2 || s7.HintsMax != len(l.Steps[6].Hints) || !s7.PassedAt.Equal(t0.Add(119*time.Minute)) {
		t.Errorf("step 7 = %+v", s7)
	}
	if !r.Steps[3].Solution || r.Steps[2].Solution {
		t.Error("solution flags not joined by step")
	}
	back, _ := roundTrip(t, r)
	if len(back.Steps) != 8 || back.Steps[2].Observed[4].Value != "runc" || back.Cluster.Version != "v1.34.12" {
		t.Errorf("JSON round trip lost data: %+v", back.Steps[2])
	}
}

// The values that decide the lab (the merge verdict, the slot table, the
// scheduler's message, the rollout numbers) appear verbatim, and a
// multi-line value stays a block.
func TestMarkdownKeepsDecidingValues(t *testing.T) {
	l := lab(t)
	md := Build(l, referenceRun(l), referenceProgress(), t0).Markdown(time.UTC)
	for _, want := range []string{
		"`plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes`",
		"0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
		"  ```text\n  PHYSICAL_GPUS=4\n  REPLICAS=5\n",
		"`READY=2`", "`out/rollout.txt:3`",
		"rollout.txt 의 READY 가 3 이지만",
		"  kubectl -n gpu-operator get ds",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestNothingRecordedYet(t *testing.T) {
	l := lab(t)
	rep := engine.Report{Lab: l.ID, Title: l.Title, Root: "/r", Problems: []string{"파일 감시기가\n멈췄습니다"}}
	for _, s := range l.Steps {
		rep.Steps = append(rep.Steps, engine.StepResult{Number: s.Number, ID: s.ID, Title: s.Title, Status: checks.Unknown,
			Checks: []checks.Result{{ID: s.ID, Status: checks.Unknown, Message: content.Msg("engine.no_checks")}}})
	}
	md := Build(l, rep, state.Progress{}, t0).Markdown(time.UTC)
	for _, want := range []string{content.Msg("ops.report.timeline_empty"), content.Msg("ops.report.observed_none"),
		content.Msg("ops.report.meta_cluster_off"), "- 파일 감시기가 멈췄습니다"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, content.Msg("ops.report.meta_started")) {
		t.Error("a start time was printed though none was recorded")
	}
}

func TestCodeAndFenceCannotBeClosedByValue(t *testing.T) {
	cases := map[string]string{"a": "`a`", "a`b": "`` a`b ``", "``x": "``` ``x ```", "": "` `"}
	for in, want := range cases {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
	if f := fence("x\n```\ny"); !strings.HasPrefix(f, "````text\n") || !strings.HasSuffix(f, "\n````") {
		t.Errorf("fence = %q", f)
	}
	if c := cell("a|b\nc"); c != `a\|b c` {
		t.Errorf("cell = %q", c)
	}
}

// The Markdown report shows a learner's file, a cluster object or a
// lab's text escaped (it is read in terminals); its JSON keeps the raw
// strings, which encoding/json escapes.
func TestMarkdownEscapesJSONKeepsRaw(t *testing.T) {
	rep := engine.Report{Title: "제목 " + termtexttest.Hostile, Root: "/r",
		Steps: []engine.StepResult{{Number: 1, Title: "단계 " + termtexttest.Hostile, Status: checks.Failed,
			Checks:   []checks.Result{{ID: "c", Status: checks.Failed, Message: "메시지 " + termtexttest.Hostile, Observed: termtexttest.Hostile}},
			Observed: []checks.Fact{{Label: "값", Value: "event " + termtexttest.Hostile}}}}}
	r := Build(nil, rep, state.Progress{}, t0)
	termtexttest.AssertOnlyStyling(t, r.Markdown(time.UTC), "제목 "+termtexttest.Shown, "메시지 "+termtexttest.Shown, "event "+termtexttest.Shown)
	back, raw := roundTrip(t, r)
	if strings.ContainsRune(raw, 0x1b) || back.Steps[0].Checks[0].Message != "메시지 "+termtexttest.Hostile || back.Title != r.Title {
		t.Errorf("JSON does not keep the raw strings escaped:\n%s", raw)
	}
}

// roundTrip writes r as JSON and reads it back.
func roundTrip(t *testing.T, r Report) (Report, string) {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	return back, b.String()
}
