package gpuincident

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
)

// YAML errors that carry no position (an alias bomb) are worded without a
// line number and without the indentation advice of a syntax error.
func TestYAMLErrorsWithoutALine(t *testing.T) {
	cases := []struct {
		name, rel, fixture string
		step               checks.Step
		id                 string
	}{
		{"manifest", gpuPodPath, "wrong/alias-bomb.yaml", stepRuntimeClassPending, "runtimeclass-pending.pod-file"},
		{"data.any", timeSlicingPath, "wrong/time-slicing-alias-bomb.yaml", stepTimeSlicing, "time-slicing.cm-fields"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newLabCluster(t)
			c.allStages()
			c.file(tc.rel, tc.fixture)
			ev := wantFail(t, c, tc.step, tc.id, "별칭", "값을 직접 쓰세요")
			r := result(t, ev, tc.id)
			if !strings.Contains(r.Observed, "excessive aliasing") {
				t.Errorf("the parser's words are not what labmate observed: %q", r.Observed)
			}
			for _, bad := range []string{"0번째 줄", "들여", "그 줄: ``"} {
				if strings.Contains(r.Message, bad) {
					t.Errorf("message says %q: %s", bad, r.Message)
				}
			}
			if strings.HasSuffix(r.Where, ":0") {
				t.Errorf("where = %q", r.Where)
			}
		})
	}
}
