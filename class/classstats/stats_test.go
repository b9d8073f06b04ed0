package classstats

import (
	"reflect"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
)

func mins(ms ...float64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Minute))
	}
	return out
}

func TestQuantile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"none", nil, 0.5, 0},
		{"one", mins(3), 0.5, 3 * time.Minute},
		{"odd median", mins(1, 2, 9), 0.5, 2 * time.Minute},
		{"even median is the mean of the middle two", mins(1, 2, 4, 9), 0.5, 3 * time.Minute},
		{"min", mins(1, 2, 4, 9), 0, time.Minute},
		{"max", mins(1, 2, 4, 9), 1, 9 * time.Minute},
		{"first quartile interpolates", mins(1, 2, 3, 4, 5), 0.25, 2 * time.Minute},
		{"between ranks", mins(0, 10), 0.25, 150 * time.Second},
		{"q above 1 is the max", mins(1, 2), 7, 2 * time.Minute},
	} {
		if got := Quantile(tc.sorted, tc.q); got != tc.want {
			t.Errorf("%s: Quantile(%v, %v) = %v, want %v", tc.name, tc.sorted, tc.q, got, tc.want)
		}
	}
}

func TestMedianInt(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want int
	}{{nil, 0}, {[]int{4}, 4}, {[]int{1, 2, 7}, 2}, {[]int{1, 2}, 2}, {[]int{1, 3}, 2}, {[]int{0, 0, 5, 9}, 3}} {
		if got := MedianInt(tc.in); got != tc.want {
			t.Errorf("MedianInt(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// learner is a record on step cur (0: done) of three steps: steps before
// cur passed after took[i] minutes each from t0 in a row, cur failing
// the given checks since the last pass.
func learner(id string, cur int, took []float64, failing ...string) class.Record {
	r := class.Record{Learner: id, Name: id, Lab: "gpu-incident", Current: cur}
	at := t0
	for n := 1; n <= 3; n++ {
		s := class.StepRecord{Number: n, Status: checks.Waiting}
		switch {
		case cur == 0 || n < cur:
			s.Status, s.Arrived = checks.Passed, at
			at = at.Add(time.Duration(took[n-1] * float64(time.Minute)))
			s.FirstPassed, s.Attempts = at, n
		case n == cur:
			s.Status, s.Arrived = checks.Failed, at
			r.CurrentSince = at
			for _, id := range failing {
				s.Failing = append(s.Failing, class.FailingCheck{ID: id, Status: checks.Failed})
			}
		}
		r.Steps = append(r.Steps, s)
	}
	return r
}

func TestSummarize(t *testing.T) {
	recs := []class.Record{
		learner("a", 0, []float64{1, 2, 3}),
		learner("b", 2, []float64{3}, "crd", "runtime"),
		learner("c", 2, []float64{5}, "runtime"),
		learner("d", 3, []float64{2, 4}, "gpu"),
		{Learner: "e", Name: "e", Lab: "gpu-incident", Steps: []class.StepRecord{}},
		{Learner: "f", Name: "f", Lab: "gpu-incident", Flag: class.Forged, Steps: []class.StepRecord{}},
	}
	recs[1].Steps[1].Hints, recs[1].Steps[1].Solution = 2, true
	recs[2].Steps[1].Hints = 1
	recs[2].Regression = &class.Regression{Step: 1, From: checks.Passed, To: checks.Failed, At: t0}
	c := Summarize(recs, 0)
	if c.Learners != 6 || c.Done != 1 || c.Absent != 1 || c.Flagged != 1 || len(c.Steps) != 3 {
		t.Fatalf("class counts: %+v", c)
	}
	type row struct {
		On, Passed, Hinted, Hints, Solutions, Regressions int
		Median, Slowest                                   time.Duration
		Failing                                           []CheckCount
		Attempts                                          []int
	}
	want := []row{
		{0, 4, 0, 0, 0, 1, 2500 * time.Millisecond * 60, 5 * time.Minute, []CheckCount{}, []int{1, 1, 1, 1}},
		{2, 2, 2, 3, 1, 0, 3 * time.Minute, 4 * time.Minute, []CheckCount{{"runtime", 2}, {"crd", 1}}, []int{2, 2}},
		{1, 1, 0, 0, 0, 0, 3 * time.Minute, 3 * time.Minute, []CheckCount{{"gpu", 1}}, []int{3}},
	}
	for i, s := range c.Steps {
		got := row{s.On, s.Passed, s.Hinted, s.Hints, s.Solutions, s.Regressions, s.Median(), s.Slowest(), s.Failing, s.Attempts}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("step %d:\n got %+v\nwant %+v", i+1, got, want[i])
		}
	}
	if got := Summarize(nil, 8); len(got.Steps) != 8 || got.Steps[7].Number != 8 {
		t.Errorf("an empty class of an 8-step lab: %+v", got)
	}
}

func TestHelpFirst(t *testing.T) {
	recs := []class.Record{
		learner("a", 0, []float64{1, 2, 3}),
		learner("b", 2, []float64{3}, "crd", "runtime"), // on step 2 since t0+3m
		learner("c", 2, []float64{5}, "runtime"),        // since t0+5m
		learner("d", 3, []float64{1, 1}, "gpu"),         // since t0+2m
		{Learner: "f", Name: "f", Lab: "gpu-incident", Flag: class.Forged, Current: 1, CurrentSince: t0},
	}
	recs[1].Steps[1].Hints = 2
	now := t0.Add(20 * time.Minute)
	got := HelpFirst(recs, now, 2)
	want := []Waiting{
		{Learner: "d", Name: "d", Lab: "gpu-incident", Step: 3, For: 18 * time.Minute, Check: "gpu"},
		{Learner: "b", Name: "b", Lab: "gpu-incident", Step: 2, For: 17 * time.Minute, Check: "crd", More: 1, Hints: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HelpFirst:\n got %+v\nwant %+v", got, want)
	}
	if all := HelpFirst(recs, now, 0); len(all) != 3 || all[2].Learner != "c" {
		t.Errorf("HelpFirst(all) = %+v", all)
	}
}

func TestMainLab(t *testing.T) {
	recs := []class.Record{{Lab: "b"}, {Lab: "a"}, {Lab: "b"}, {Lab: "c"}}
	for _, tc := range []struct {
		prefer []string
		want   string
	}{{nil, "b"}, {[]string{"", "c"}, "c"}, {[]string{"a", "c"}, "a"}} {
		if got := MainLab(recs, tc.prefer...); got != tc.want {
			t.Errorf("MainLab(%v) = %q, want %q", tc.prefer, got, tc.want)
		}
	}
	if got := MainLab(recs[:2]); got != "a" {
		t.Errorf("a tie goes to the first ID, got %q", got)
	}
	if got := len(OfLab(recs, "b")); got != 2 {
		t.Errorf("OfLab(b) = %d records", got)
	}
}

// Only checks that failed are counted as failing: a check that waits
// (for an earlier check of the step, for the cluster) never ran, and a
// record lists it beside the one that failed. Counting it would put the
// waiting check first and hide the real one.
func TestFailingCountsOnlyFailedChecks(t *testing.T) {
	waitingFirst := func(id string) class.Record {
		r := learner(id, 2, []float64{3})
		r.Steps[1].Failing = []class.FailingCheck{
			{ID: "a-waits", Status: checks.Waiting},
			{ID: "b-waits-too", Status: checks.Waiting},
			{ID: "z-fails", Status: checks.Failed},
		}
		return r
	}
	onlyWaiting := learner("c", 2, []float64{3})
	onlyWaiting.Steps[1].Failing = []class.FailingCheck{{ID: "a-waits", Status: checks.Waiting}}
	recs := []class.Record{waitingFirst("a"), waitingFirst("b"), onlyWaiting}
	got := Summarize(recs, 3).Steps[1].Failing
	if want := []CheckCount{{"z-fails", 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("failing checks on step 2: %+v, want %+v", got, want)
	}
	q := HelpFirst(recs, t0.Add(time.Hour), 0)
	for _, w := range q {
		want, more := "z-fails", 0
		if w.Learner == "c" {
			want = ""
		}
		if w.Check != want || w.More != more {
			t.Errorf("%s: check %q (+%d), want %q (+%d)", w.Learner, w.Check, w.More, want, more)
		}
	}
}
