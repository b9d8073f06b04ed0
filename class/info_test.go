package class

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func infoObject(t *testing.T, i Info) *corev1.ConfigMap {
	t.Helper()
	raw, err := MarshalInfo(i)
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: InfoObject}, Data: map[string]string{InfoKey: raw}}
}

// The roster's names (the class object, which only the instructor
// writes) are what the board shows; the name a learner chose stays in
// the record. A name that breaks a record's bounds is dropped, and the
// class object is never read as a record.
func TestCollectShowsTheRosterName(t *testing.T) {
	objs := []*corev1.ConfigMap{
		infoObject(t, Info{Labs: []string{"gpu-incident"}, Names: map[string]string{
			"learner-01": "김지민", "learner-02": "bad\x1b[2J", "learner-03": strings.Repeat("가", MaxNameRunes+1)}}),
		object("learner-01.gpu-incident", recordJSON(t, "learner-01", "gpu-incident", nil)),
		object("learner-02.gpu-incident", recordJSON(t, "learner-02", "gpu-incident", nil)),
		object("learner-03.gpu-incident", recordJSON(t, "learner-03", "gpu-incident", nil)),
	}
	c := Collect(objs, "")
	if !c.HasInfo || len(c.Info.Labs) != 1 || c.Info.Labs[0] != "gpu-incident" {
		t.Fatalf("class object read as %+v (%v)", c.Info, c.HasInfo)
	}
	if len(c.Records) != 3 {
		t.Fatalf("%d records, want 3 (the class object is not one)", len(c.Records))
	}
	want := []string{"김지민", "이름 learner-02", "이름 learner-03"}
	for i, r := range c.Records {
		if r.Shown() != want[i] {
			t.Errorf("%s shown as %q, want %q", r.Learner, r.Shown(), want[i])
		}
	}
	if c.Records[0].Name != "이름 learner-01" {
		t.Errorf("the chosen name was lost: %q", c.Records[0].Name)
	}
}

// Two labmates publishing with one class file take turns writing the
// record: a run seen before writing again after another is marked
// Shared, for SharedFor. A restart (a new run) is not.
func TestCollectorMarksTwoRunsTakingTurns(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	m := &Collector{Now: func() time.Time { return now }}
	rv := 0
	write := func(run string) Record {
		rv++
		o := object("ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Run = run }))
		o.ResourceVersion = string(rune('0' + rv))
		c := m.Collect([]*corev1.ConfigMap{o}, "gpu-incident")
		return c.Records[0]
	}
	for _, run := range []string{"a", "a", "b"} { // a start, a change, a restart
		if r := write(run); r.Shared {
			t.Fatalf("run %s: marked shared after a restart", run)
		}
	}
	if r := write("a"); !r.Shared {
		t.Fatal("run a wrote again after b: not marked shared")
	}
	now = now.Add(SharedFor)
	if r := write("a"); r.Shared {
		t.Error("still marked shared after SharedFor without turns")
	}
}
