package gpuincident

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
)

// The one KEY=VALUE parser, on its own: what each kind of line gives.
func TestParseKeyValues(t *testing.T) {
	keys := []string{"A", "B", "C"}
	for _, tc := range []struct {
		name     string
		text     string
		noSpaces bool
		values   map[string]string // key -> value read
		problems []string          // each must appear; none when empty
	}{
		{name: "exact", text: "A=1\nB=2\nC=3\n", values: map[string]string{"A": "1", "B": "2", "C": "3"}},
		{name: "CRLF, no final newline", text: "A=1\r\nB=2\r\nC=3", values: map[string]string{"A": "1", "B": "2", "C": "3"}},
		{name: "spaces read past", text: "A = 1\nB=2 \nC=3\n", values: map[string]string{"A": "1", "B": "2", "C": "3"}},
		{name: "spaces forbidden", text: "A = 1\nB=2 \nC=3\n", noSpaces: true,
			values:   map[string]string{"A": "1", "B": "2", "C": "3"},
			problems: []string{"1번째 줄의 = 앞뒤에 공백이 있습니다"}},
		{name: "empty value is a value", text: "A=\nB=2\nC=3\n", values: map[string]string{"A": "", "B": "2", "C": "3"}},
		{name: "value with =", text: "A=x=y\nB=2\nC=3\n", values: map[string]string{"A": "x=y", "B": "2", "C": "3"}},
		{name: "case", text: "a=1\nB=2\nC=3\n", values: map[string]string{"B": "2", "C": "3"},
			problems: []string{"1번째 줄의 키 a 는 이 파일의 키가 아닙니다 (대소문자를 구분합니다: A)", "A 줄이 없습니다"}},
		{name: "unknown, no case hint", text: "A=1\nB=2\nC=3\nD=4\n", values: map[string]string{"A": "1", "B": "2", "C": "3"},
			problems: []string{"4줄입니다(3줄이어야 합니다)", "4번째 줄의 키 D 는 이 파일의 키가 아닙니다;"}},
		{name: "duplicate keeps the first", text: "A=1\nA=9\nC=3\n", values: map[string]string{"A": "1", "C": "3"},
			problems: []string{"A 가 2번째 줄에 또 있습니다(처음은 1번째 줄)", "B 줄이 없습니다"}},
		{name: "order", text: "B=2\nA=1\nC=3\n", values: map[string]string{"A": "1", "B": "2", "C": "3"},
			problems: []string{"키 순서가 다릅니다: B, A, C"}},
		{name: "blank and no =", text: "A=1\n\nB: 2\n", values: map[string]string{"A": "1"},
			problems: []string{"2번째 줄이 비어 있습니다", "3번째 줄에 = 가 없습니다: `B: 2`", "B 줄이 없습니다", "C 줄이 없습니다"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			byKey, problems := checks.ParseKeyValues(msg, tc.text, keys, tc.noSpaces)
			if len(byKey) != len(tc.values) {
				t.Errorf("read %v, want %v", byKey, tc.values)
			}
			for k, v := range tc.values {
				if l, ok := byKey[k]; !ok || l.Value != v || l.Key != k || l.N < 1 {
					t.Errorf("%s: read %+v (%v), want value %q", k, l, ok, v)
				}
			}
			got := problems.String()
			if len(tc.problems) == 0 && !problems.Empty() {
				t.Errorf("problems %q, want none", got)
			}
			if len(tc.problems) > 0 && problems.Empty() {
				t.Errorf("no problems, want %q", tc.problems)
			}
			for _, w := range tc.problems {
				if !strings.Contains(got+";", w) {
					t.Errorf("problems %q lack %q", got, w)
				}
			}
		})
	}
}

// Step 7 does not tell the learner to avoid spaces around '=', so a
// slots.txt with them is read as written; step 3 does, so merge.txt is not
// (TestMergeVerdictWrong "spaces around =").
func TestSlotsWithSpacesAroundEquals(t *testing.T) {
	c := clusterAtStep7(t)
	c.content(slotsPath, []byte("PHYSICAL_GPUS = 4\nREPLICAS = 5\nADVERTISED = 20\nVRAM_PER_GPU_GIB = 40\n"+
		"VRAM_GUARANTEED_PER_SLOT_GIB = 0\nVRAM_SHARED_PER_GPU_GIB = 40\nISOLATION = none\n"))
	if ev := c.eval(stepTimeSlicing); checks.Aggregate(ev.Checks) != checks.Passed {
		t.Errorf("step 7 %s: %v", checks.Aggregate(ev.Checks), failing(ev))
	}
	// The same values with a wrong one still name it.
	c.content(slotsPath, []byte("PHYSICAL_GPUS = 4\nREPLICAS = 5\nADVERTISED = 20\nVRAM_PER_GPU_GIB = 40\n"+
		"VRAM_GUARANTEED_PER_SLOT_GIB = 8\nVRAM_SHARED_PER_GPU_GIB = 40\nISOLATION = none\n"))
	wantFail(t, c, stepTimeSlicing, "time-slicing.slots-values", "VRAM_GUARANTEED_PER_SLOT_GIB=8", "5번째 줄")
	wantStatus(t, c, stepTimeSlicing, "time-slicing.slots-format", checks.Passed, "KEY=VALUE 7줄")
}

// Every report file gets the case hint and the cap, not only merge.txt.
func TestClusterReportsShareTheFormatCheck(t *testing.T) {
	t.Run("slots.txt key in lower case", func(t *testing.T) {
		c := clusterAtStep7(t)
		c.content(slotsPath, []byte("physical_gpus=4\nREPLICAS=5\nADVERTISED=20\nVRAM_PER_GPU_GIB=40\n"+
			"VRAM_GUARANTEED_PER_SLOT_GIB=0\nVRAM_SHARED_PER_GPU_GIB=40\nISOLATION=none\n"))
		wantFail(t, c, stepTimeSlicing, "time-slicing.slots-format", "slots.txt",
			"키 physical_gpus 는 이 파일의 키가 아닙니다 (대소문자를 구분합니다: PHYSICAL_GPUS)", "PHYSICAL_GPUS 줄이 없습니다")
	})
	t.Run("rollout.txt key in lower case", func(t *testing.T) {
		c := newLabCluster(t)
		c.allStages()
		c.content(rolloutPath, []byte("DESIRED=3\nupdated=1\nREADY=2\nOLD_IMAGE_PODS=2\nMAX_UNAVAILABLE=1\nBLOCKER=insufficient-memory\n"))
		wantFail(t, c, stepRolloutStall, "rollout-stall.report-format", "rollout.txt",
			"2번째 줄의 키 updated 는 이 파일의 키가 아닙니다 (대소문자를 구분합니다: UPDATED)")
	})
	for _, tc := range []struct {
		name, rel, id string
		step          checks.Step
		want          []string
	}{
		{"runaway slots.txt", slotsPath, "time-slicing.slots-format", stepTimeSlicing, []string{"100000줄입니다(7줄이어야 합니다)", "그 밖에"}},
		{"runaway rollout.txt", rolloutPath, "rollout-stall.report-format", stepRolloutStall, []string{"100000줄입니다(6줄이어야 합니다)", "그 밖에"}},
		{"runaway node-gpu.txt", nodeGPUPath, "advertise-gpu.table-file", stepAdvertiseGPU, []string{"실습 노드가 아닙니다", "그 밖에"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newLabCluster(t)
			c.allStages()
			c.content(tc.rel, []byte(strings.Repeat("noise x\n", 100000)))
			r := wantFail(t, c, tc.step, tc.id, tc.want...)
			if m := result(t, r, tc.id).Message; len(m) > 2000 {
				t.Errorf("%d bytes: %.300s", len(m), m)
			}
		})
	}
}

// clusterAtStep7 is a lab with steps 5-7 done.
func clusterAtStep7(t *testing.T) *labCluster {
	c := newLabCluster(t)
	c.stage5()
	c.stage6()
	c.stage7()
	return c
}
