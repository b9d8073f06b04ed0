package class

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/internal/termtext/termtexttest"
)

// The grading export keeps a record's strings as the record holds them:
// JSON escapes a control character, so no raw one is written, and a
// grader's tool reads back exactly what the learner's labmate wrote.
func TestExportJSONKeepsRawStrings(t *testing.T) {
	c := Class{Records: []Record{{Name: termtexttest.Hostile, Learner: "ana", Lab: "gpu-incident"}}}
	var b bytes.Buffer
	if err := WriteJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	var back Export
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(b.String(), 0x1b) || back.Learners[0].Name != termtexttest.Hostile {
		t.Errorf("export does not keep the raw name, escaped:\n%s", b.String())
	}
}

// The export carries each step's times and attempts, whether it was
// caught up, its named mistake, its hands and their times to an
// acknowledgement (JSON and CSV), and
// a saved JSON export reads back to the same records (report --from).
func TestExportCarriesTimesAndAttemptsAndReadsBack(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	rec := Record{Schema: Schema, Learner: "ana", Name: "아나", Lab: "gpu-incident", Labmate: "v1", Updated: at.Add(9 * time.Minute),
		Current: 2, CurrentSince: at.Add(7 * time.Minute),
		Regression: &Regression{Step: 1, From: checks.Passed, To: checks.Failed, At: at.Add(3 * time.Minute)},
		Steps: []StepRecord{
			{Number: 1, Status: checks.Passed, Hints: 2, Solution: true, Arrived: at, FirstPassed: at.Add(7 * time.Minute), Attempts: 4, CaughtUp: true},
			{Number: 2, Status: checks.Failed, Arrived: at.Add(7 * time.Minute), Attempts: 1,
				Failing: []FailingCheck{{ID: "runtime-class", Status: checks.Failed}},
				Mistake: "따옴표 없는 이름", Hands: 2, AckSeconds: []int{40, 95}},
		}}
	c := Class{Records: []Record{rec}}
	var js, cs bytes.Buffer
	if err := WriteJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&cs, c); err != nil {
		t.Fatal(err)
	}
	// Excel reads a CSV without a byte order mark in the legacy code
	// page: the file starts with one, and nothing else changes.
	raw, ok := bytes.CutPrefix(cs.Bytes(), []byte("\xef\xbb\xbf"))
	if !ok {
		t.Fatalf("the CSV does not start with a UTF-8 byte order mark: %q", cs.Bytes()[:min(8, cs.Len())])
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(rows[0], ",")
	if head != "name,learner,lab,updated,flag,step,status,hints,lab_version,arrived,first_passed,seconds_to_pass,attempts,solution,current,regression,caught_up,mistake,hands,ack_seconds" {
		t.Errorf("csv header %q", head)
	}
	if got := strings.Join(rows[1][9:], ","); got != "2026-12-01T09:00:00Z,2026-12-01T09:07:00Z,420,4,true,2,1,true,,0," {
		t.Errorf("step 1 times, attempts, solution, current, regression, caught up, mistake and hands in csv: %q", got)
	}
	if got := strings.Join(rows[2][9:], ","); got != "2026-12-01T09:07:00Z,,,1,false,2,1,false,따옴표 없는 이름,2,40 95" {
		t.Errorf("step 2 in csv: %q", got)
	}
	e, err := ReadExport(&js)
	if err != nil {
		t.Fatal(err)
	}
	back := FromExport(e)
	if len(back.Records) != 1 {
		t.Fatalf("%d records back", len(back.Records))
	}
	got := back.Records[0]
	want := rec
	want.Labmate = "" // not exported
	want.Steps[1].Failing[0].Status = checks.Failed
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
}

// A saved export is a file anyone could edit: a learner in it that
// breaks a record's bounds is flagged as a record object would be.
func TestFromExportFlagsWhatBreaksTheBounds(t *testing.T) {
	e := Export{Learners: []ExportLearner{
		{Name: "ok", Learner: "ana", Lab: "gpu-incident", Steps: []ExportStep{{Number: 1, Status: checks.Passed}}},
		{Name: "bad\x1b[2J", Learner: "bo", Lab: "gpu-incident", Steps: []ExportStep{{Number: 1, Status: checks.Passed}}},
		{Name: "x", Learner: "cy", Lab: "gpu-incident", Steps: []ExportStep{{Number: 1, Status: checks.Passed, Attempts: -3}}},
	}}
	c := FromExport(e)
	for i, want := range []Flag{"", Malformed, Malformed} {
		r := c.Records[i]
		if r.Flag != want || (want != "" && len(r.Steps) != 0) {
			t.Errorf("%s: flag %q steps %d, want flag %q", r.Learner, r.Flag, len(r.Steps), want)
		}
	}
}

// The instructor's roster names a learner: the CSV's name column and the
// JSON's listed field carry it; the name the learner chose stays in the
// JSON's name, and both read back. A learner who never joined still has
// a row, with no current step.
func TestExportCarriesTheRosterName(t *testing.T) {
	c := Class{Records: []Record{
		{Schema: Schema, Learner: "learner-01", Name: "jimin", Listed: "김지민", Lab: "gpu-incident",
			Steps: []StepRecord{{Number: 1, Status: checks.Failed}}, Current: 1},
		{Schema: Schema, Learner: "learner-02", Name: "learner-02", Listed: "이서준", Lab: "gpu-incident", Steps: []StepRecord{}},
	}}
	var js, cs bytes.Buffer
	if err := WriteJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&cs, c); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(cs.Bytes(), []byte("\xef\xbb\xbf")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if rows[1][0] != "김지민" || rows[2][0] != "이서준" || rows[2][14] != "" {
		t.Errorf("csv rows: %q", rows[1:])
	}
	e, err := ReadExport(&js)
	if err != nil {
		t.Fatal(err)
	}
	if l := e.Learners[0]; l.Name != "jimin" || l.Listed != "김지민" {
		t.Errorf("json: %+v", l)
	}
	if back := FromExport(e).Records[0]; back.Shown() != "김지민" || back.Name != "jimin" {
		t.Errorf("read back: %+v", back)
	}
}
