package class

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/checks"
)

// object is a record object as init makes it, holding data.
func object(name, data string) *corev1.ConfigMap {
	learner, lab, _ := strings.Cut(name, ".")
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelRecord: "true", LabelLearner: learner, LabelLab: lab}},
		Data:       map[string]string{DataKey: data},
	}
}

// recordJSON is a record labmate could have written for learner and lab,
// step 1 passed, changed by edit.
func recordJSON(t *testing.T, learner, lab string, edit func(*Record)) string {
	t.Helper()
	r := NewRecord(Identity{Learner: learner, Name: "이름 " + learner, Lab: lab, Labmate: "v1.0.0"})
	now := time.Now().UTC().Truncate(time.Second)
	r.Updated, r.Current, r.CurrentSince = now, 2, now
	r.Steps = []StepRecord{
		{Number: 1, Status: checks.Passed, Since: now, Arrived: now, FirstPassed: now},
		{Number: 2, Status: checks.Failed, Since: now, Arrived: now, Failing: []FailingCheck{{ID: "bad-check", Status: checks.Failed}}},
	}
	if edit != nil {
		edit(&r)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// Identity comes from the object's name: a record whose content names
// another learner or lab, does not parse, or breaks a bound is flagged,
// keeps the learner and lab of its name and shows no step at all.
func TestRecordIdentityComesFromTheObject(t *testing.T) {
	known := map[string]bool{"gpu-incident": true, "driver-reboot": true}
	old := installedLab
	installedLab = func(lab string) bool { return known[lab] }
	t.Cleanup(func() { installedLab = old })

	page := MaxSteps + 1
	for _, tc := range []struct {
		name, object, data string
		want               Flag
	}{
		{"its own record", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", nil), ""},
		{"claims another learner", "ana.gpu-incident", recordJSON(t, "bo", "gpu-incident", nil), Forged},
		{"claims another lab", "ana.gpu-incident", recordJSON(t, "ana", "driver-reboot", nil), Forged},
		{"claims a made-up lab of 300 characters", "ana.gpu-incident", recordJSON(t, "ana", strings.Repeat("x", 300), nil), Forged},
		{"names no learner", "ana.gpu-incident", recordJSON(t, "", "gpu-incident", nil), Forged},
		{"does not parse", "ana.gpu-incident", `{"schema": 1, "learner": "ana", "steps": [`, Malformed},
		{"empty", "ana.gpu-incident", "", Malformed},
		{"a schema from the future", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Schema = Schema + 1 }), Malformed},
		{"schema 0", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Schema = 0 }), Malformed},
		{"negative attempts", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[1].Attempts = -1 }), Malformed},
		{"attempts beyond the bound", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[1].Attempts = MaxAttempts + 1 }), Malformed},
		{"right but padded beyond the size bound", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", nil) + strings.Repeat(" ", MaxRecordBytes), Malformed},
		{"a long check ID", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) {
			r.Steps[1].Failing = append(r.Steps[1].Failing, FailingCheck{ID: strings.Repeat("a", 129), Status: checks.Failed})
		}), Malformed},
		{"a name of 41 characters", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Name = strings.Repeat("가", MaxNameRunes+1) }), Malformed},
		{"a name with a terminal escape", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Name = "ana\x1b[2J" }), Malformed},
		{"a name with a bidi override", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Name = "ana\u202e" }), Malformed},
		{"a long labmate version", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Labmate = strings.Repeat("v", 129) }), Malformed},
		{"an unknown status", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[0].Status = "graded-a+" }), Malformed},
		{"a step twice", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[1].Number = 1 }), Malformed},
		{"step 0", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[0].Number = 0 }), Malformed},
		{"too many steps", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) {
			for i := 3; i <= MaxSteps+1; i++ {
				r.Steps = append(r.Steps, StepRecord{Number: i, Status: checks.Passed})
			}
		}), Malformed},
		{"negative hints", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[0].Hints = -1 }), Malformed},
		{"hints beyond the bound", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[0].Hints = MaxHints + 1 }), Malformed},
		{"too many failing checks", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) {
			for range MaxFailing + 1 {
				r.Steps[1].Failing = append(r.Steps[1].Failing, FailingCheck{ID: "c", Status: checks.Failed})
			}
		}), Malformed},
		{"a page beyond the bound", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Page = &page }), Malformed},
		{"a regression of step 0", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) {
			r.Regression = &Regression{Step: 0, From: checks.Passed, To: checks.Failed, At: time.Now()}
		}), Malformed},
		{"an object for a lab labmate does not have", "ana.made-up", recordJSON(t, "ana", "made-up", nil), Malformed},
		{"a raised hand with a note and a message", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) {
			r.Hand = &Hand{Step: 2, Raised: time.Now(), Note: "도와주세요", Hints: 1, Checks: []HandCheck{{ID: "bad-check", Message: "값이 틀렸습니다"}}}
			r.Steps[1].Mistake, r.Steps[1].Hands, r.Steps[1].AckSeconds = "따옴표 없는 이름", 1, []int{40}
		}), ""},
		{"a hand's note with a terminal escape", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) {
			r.Hand = &Hand{Step: 2, Raised: time.Now(), Note: "hi\x1b]2;x\x07"}
		}), Malformed},
		{"a hand's message beyond the bound", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) {
			r.Hand = &Hand{Step: 2, Raised: time.Now(), Checks: []HandCheck{{ID: "c", Message: strings.Repeat("가", MaxMessageRunes+1)}}}
		}), Malformed},
		{"a hand on step 0", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Hand = &Hand{Raised: time.Now()} }), Malformed},
		{"a mistake with a bidi override", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[1].Mistake = "a\u202e" }), Malformed},
		{"negative seconds to an acknowledgement", "ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", func(r *Record) { r.Steps[1].AckSeconds = []int{-1} }), Malformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Collect([]*corev1.ConfigMap{object(tc.object, tc.data)}, "")
			if len(c.Records) != 1 {
				t.Fatalf("%d records, want 1: %+v", len(c.Records), c.Records)
			}
			r := c.Records[0]
			learner, lab, _ := SplitObjectName(tc.object)
			if r.Flag != tc.want || r.Learner != learner || r.Lab != lab {
				t.Fatalf("flag %q learner %q lab %q, want %q %q %q", r.Flag, r.Learner, r.Lab, tc.want, learner, lab)
			}
			if tc.want == "" {
				if r.Passed() != 1 || r.Name != "이름 ana" {
					t.Errorf("a believed record lost its content: %+v", r)
				}
				return
			}
			if len(r.Steps) != 0 || r.Passed() != 0 || r.Name != learner || r.Current != 0 || r.Regression != nil || r.Page != nil {
				t.Errorf("a flagged record kept content: %+v", r)
			}
			exp := ToExport(c).Learners
			if len(exp) != 1 || exp[0].Flag != tc.want || len(exp[0].Steps) != 0 || exp[0].Learner != learner || exp[0].Lab != lab {
				t.Errorf("export: %+v", exp)
			}
			var csv bytes.Buffer
			if err := WriteCSV(&csv, c); err != nil || !strings.Contains(csv.String(), ","+string(tc.want)+",,,") {
				t.Errorf("csv %q, %v", csv.String(), err)
			}
		})
	}
}

// The lab filter and who is a record at all go by the object's name, not
// by labels a learner may patch; one row per object.
func TestCollectFiltersByName(t *testing.T) {
	old := installedLab
	installedLab = func(lab string) bool { return lab == "gpu-incident" || lab == "driver-reboot" }
	t.Cleanup(func() { installedLab = old })
	mislabelled := object("bo.gpu-incident", recordJSON(t, "bo", "gpu-incident", nil))
	mislabelled.Labels[LabelLab], mislabelled.Labels[LabelLearner] = "driver-reboot", "ana"
	unlabelled := object("cy.gpu-incident", recordJSON(t, "cy", "gpu-incident", nil))
	unlabelled.Labels = nil
	objs := []*corev1.ConfigMap{
		object("ana.gpu-incident", recordJSON(t, "ana", "gpu-incident", nil)),
		object("ana.driver-reboot", recordJSON(t, "ana", "driver-reboot", nil)),
		mislabelled,
		unlabelled,
		object("Not_A.learner", "{}"),
		object("kube-root-ca", "{}"),
		{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt"}, Data: map[string]string{"ca.crt": "..."}},
	}
	c := Collect(objs, "gpu-incident")
	if len(c.Records) != 3 || c.Records[0].Learner != "ana" || c.Records[1].Learner != "bo" || c.Records[1].Lab != "gpu-incident" ||
		c.Records[2].Learner != "cy" || c.Records[2].Flag != "" {
		t.Fatalf("gpu-incident: %+v", c.Records)
	}
	if c := Collect(objs, ""); len(c.Records) != 4 {
		t.Fatalf("every lab: %d records, want 4: %+v", len(c.Records), c.Records)
	}
}

// A learner's chosen name is made to fit before it is sent (the tracker
// starts from NewRecord), so labmate never writes a record its own board
// flags.
func TestNewRecordFitsTheChosenName(t *testing.T) {
	r := NewRecord(Identity{Learner: "ana", Name: "\x1b[31m" + strings.Repeat("가", 50), Lab: "gpu-incident"})
	if r.bounded() != nil || r.Name != "[31m"+strings.Repeat("가", MaxNameRunes-4) {
		t.Fatalf("name %q: %v", r.Name, r.bounded())
	}
}

// Records of the lab the class carries are read even though labmate does
// not embed it; without the lab object they are for an unknown lab.
// The lab object comes from the instructor (learners may only read it), so
// its ID is believed; a learner's record naming a lab version is kept.
func TestRecordsOfTheClassLabAreRead(t *testing.T) {
	data := recordJSON(t, "ana", "own-lab", func(r *Record) { r.LabVersion = "2.0" })
	rec := object("ana.own-lab", data)
	rec.ResourceVersion = "5" // so the board's memo keeps it
	labObj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: LabObject,
		Annotations: map[string]string{AnnotationLabID: "own-lab", AnnotationLabVersion: "2.0"}}}
	c := Collect([]*corev1.ConfigMap{rec, labObj}, "")
	if len(c.Records) != 1 || c.Records[0].Flag != "" || c.Records[0].LabVersion != "2.0" || c.Lab.Version != "2.0" {
		t.Fatalf("with the class's lab object: %+v", c)
	}
	c = Collect([]*corev1.ConfigMap{rec}, "")
	if len(c.Records) != 1 || c.Records[0].Flag != Malformed {
		t.Fatalf("without it: %+v, want flagged malformed", c)
	}
	// The memo of the board's watch forgets what it decided when the
	// class's lab changes.
	m := &Collector{}
	if c := m.Collect([]*corev1.ConfigMap{rec}, ""); c.Records[0].Flag != Malformed {
		t.Fatalf("memo without the lab object: %+v", c.Records[0])
	}
	if c := m.Collect([]*corev1.ConfigMap{rec, labObj}, ""); c.Records[0].Flag != "" {
		t.Fatalf("memo after the lab object arrived: %+v", c.Records[0])
	}
	bad := recordJSON(t, "ana", "own-lab", func(r *Record) { r.LabVersion = "2\x1b[31m" })
	if c := Collect([]*corev1.ConfigMap{object("ana.own-lab", bad), labObj}, ""); c.Records[0].Flag != Malformed {
		t.Fatalf("a lab version with a control character: %+v", c.Records[0])
	}
}
