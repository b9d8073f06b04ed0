package gpuincident

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
)

// A report value check never passes on lines it could not read: a key
// the file lacks makes it wait on the format check and name the key.
func TestReportValuesNeedEveryKey(t *testing.T) {
	cases := []struct {
		name    string
		step    checks.Step
		rel     string
		text    string
		id      string
		want    checks.Status
		words   []string
		missing []string // keys the message must name as missing
	}{
		{"slots.txt without a single key", stepTimeSlicing, slotsPath, "hello\n", "time-slicing.slots-values", checks.Waiting,
			[]string{"형식"}, slotsReport.Keys},
		{"slots.txt without a key, live", stepTimeSlicing, slotsPath, "hello\n", "time-slicing.slots-live", checks.Waiting,
			[]string{"형식"}, []string{"REPLICAS", "ADVERTISED"}},
		{"slots.txt missing ISOLATION only", stepTimeSlicing, slotsPath,
			"PHYSICAL_GPUS=4\nREPLICAS=5\nADVERTISED=20\nVRAM_PER_GPU_GIB=40\nVRAM_GUARANTEED_PER_SLOT_GIB=0\nVRAM_SHARED_PER_GPU_GIB=40\n",
			"time-slicing.slots-values", checks.Waiting, nil, []string{"ISOLATION"}},
		{"slots.txt with a wrong value and a missing key", stepTimeSlicing, slotsPath,
			"PHYSICAL_GPUS=8\nREPLICAS=5\nADVERTISED=20\nVRAM_PER_GPU_GIB=40\nVRAM_GUARANTEED_PER_SLOT_GIB=0\nVRAM_SHARED_PER_GPU_GIB=40\n",
			"time-slicing.slots-values", checks.Failed, []string{"PHYSICAL_GPUS=8", "4 여야"}, []string{"ISOLATION"}},
		{"rollout.txt without a single key", stepRolloutStall, rolloutPath, "hello\n", "rollout-stall.report-live", checks.Waiting,
			[]string{"형식"}, rolloutReport.Keys},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newLabCluster(t)
			c.allStages()
			c.content(tc.rel, []byte(tc.text))
			r := wantStatus(t, c, tc.step, tc.id, tc.want, tc.words...)
			for _, k := range tc.missing {
				if !strings.Contains(r.Message, k) {
					t.Errorf("message does not name the missing key %s: %s", k, r.Message)
				}
			}
			if st := c.status(tc.step); st == checks.Passed {
				t.Errorf("step %d passed", tc.step.Number)
			}
		})
	}
}
