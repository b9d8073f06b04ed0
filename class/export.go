package class

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/labhub/labmate/checks"
)

// Export is the grading export's JSON shape, and what `class report
// --from` reads back.
type Export struct {
	Learners []ExportLearner `json:"learners"`
}

// ExportLearner is one learner's record for grading: Learner and Lab
// from the record object's name, Flag (and no steps) when its content
// is not believed.
type ExportLearner struct {
	// Name is the name the learner chose; Listed the one on the
	// instructor's roster ("" when it has none).
	Name    string `json:"name"`
	Listed  string `json:"listed,omitempty"`
	Learner string `json:"learner"`
	Lab     string `json:"lab"`
	// LabVersion is the version of the lab the learner's labmate ran.
	LabVersion string    `json:"labVersion,omitempty"`
	Updated    time.Time `json:"updated"`
	Flag       Flag      `json:"flag,omitempty"`
	// Current is the first step not passed (0: all passed), since
	// CurrentSince.
	Current      int          `json:"current"`
	CurrentSince time.Time    `json:"currentSince,omitzero"`
	Steps        []ExportStep `json:"steps"`
	Regression   *Regression  `json:"regression,omitempty"`
}

// ExportStep is one step for grading; Status as in `check --json`.
// Arrived, FirstPassed and Attempts as in StepRecord (zero in a schema 1
// record); Failing the IDs of the checks that do not pass now.
type ExportStep struct {
	Number      int           `json:"number"`
	Status      checks.Status `json:"status"`
	Hints       int           `json:"hints"`
	Solution    bool          `json:"solution,omitempty"`
	Arrived     time.Time     `json:"arrived,omitzero"`
	FirstPassed time.Time     `json:"firstPassed,omitzero"`
	Attempts    int           `json:"attempts"`
	Failing     []string      `json:"failing,omitempty"`
	// CaughtUp, Mistake, Hands and AckSeconds as in StepRecord (schema
	// 3): a step caught up is no answer of the learner's own.
	CaughtUp   bool   `json:"caughtUp,omitempty"`
	Mistake    string `json:"mistake,omitempty"`
	Hands      int    `json:"hands,omitempty"`
	AckSeconds []int  `json:"ackSeconds,omitempty"`
}

// Record is the step as a StepRecord (TimeToPass and the statistics
// read both live records and saved exports through it).
func (s ExportStep) Record() StepRecord {
	r := StepRecord{Number: s.Number, Status: s.Status, Hints: s.Hints, Solution: s.Solution,
		Arrived: s.Arrived, FirstPassed: s.FirstPassed, Attempts: s.Attempts,
		CaughtUp: s.CaughtUp, Mistake: s.Mistake, Hands: s.Hands, AckSeconds: s.AckSeconds}
	for _, id := range s.Failing {
		r.Failing = append(r.Failing, FailingCheck{ID: id, Status: checks.Failed})
	}
	return r
}

// ToExport turns a class into the export shape.
func ToExport(c Class) Export {
	e := Export{Learners: []ExportLearner{}}
	for _, r := range c.Records {
		l := ExportLearner{Name: r.Name, Listed: r.Listed, Learner: r.Learner, Lab: r.Lab, LabVersion: r.LabVersion, Updated: r.Updated, Flag: r.Flag,
			Current: r.Current, CurrentSince: r.CurrentSince, Steps: []ExportStep{}, Regression: r.Regression}
		for _, s := range r.Steps {
			es := ExportStep{Number: s.Number, Status: s.Status, Hints: s.Hints, Solution: s.Solution,
				Arrived: s.Arrived, FirstPassed: s.FirstPassed, Attempts: s.Attempts,
				CaughtUp: s.CaughtUp, Mistake: s.Mistake, Hands: s.Hands, AckSeconds: s.AckSeconds}
			for _, f := range s.Failing {
				es.Failing = append(es.Failing, f.ID)
			}
			l.Steps = append(l.Steps, es)
		}
		e.Learners = append(e.Learners, l)
	}
	return e
}

// FromExport is a saved export as records again (what `class report
// --from` draws). Every learner is checked against the record bounds as
// a record object's content is: one that breaks them keeps its learner
// and lab and is flagged Malformed, with no steps.
func FromExport(e Export) Class {
	var c Class
	for _, l := range e.Learners {
		r := Record{Schema: Schema, Learner: l.Learner, Name: l.Name, Listed: l.Listed, Lab: l.Lab, LabVersion: l.LabVersion, Updated: l.Updated,
			Flag: l.Flag, Current: l.Current, CurrentSince: l.CurrentSince, Regression: l.Regression, Steps: []StepRecord{}}
		for _, s := range l.Steps {
			r.Steps = append(r.Steps, s.Record())
		}
		if r.Listed != "" && !ValidName(r.Listed) {
			r.Listed = ""
		}
		if r.Flag == "" && (!ValidLearner(r.Learner) || r.bounded() != nil) {
			r = Record{Schema: Schema, Learner: l.Learner, Name: l.Learner, Listed: r.Listed, Lab: l.Lab, Steps: []StepRecord{}, Flag: Malformed}
		}
		c.Records = append(c.Records, r)
	}
	c.Synced = true
	return c
}

// ReadExport reads a saved JSON export (WriteJSON).
func ReadExport(r io.Reader) (Export, error) {
	var e Export
	dec := json.NewDecoder(io.LimitReader(r, maxExportBytes))
	if err := dec.Decode(&e); err != nil {
		return Export{}, err
	}
	return e, nil
}

// maxExportBytes bounds a saved export: a record's bound times the
// largest class init makes, with room to spare.
const maxExportBytes = 1000 * MaxRecordBytes * 2

// WriteJSON writes the export as indented JSON.
func WriteJSON(w io.Writer, c Class) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(ToExport(c))
}

// csvBOM starts the CSV: a UTF-8 byte order mark, without which Excel
// opens a CSV file in the system's legacy code page (CP949 on a Korean
// Windows) and shows Korean names as mojibake. LibreOffice and Google
// Sheets take it as the UTF-8 mark it is.
const csvBOM = "\ufeff"

// csvHeader is the CSV's columns; new columns go last, so sheets made
// before them keep their columns.
var csvHeader = []string{"name", "learner", "lab", "updated", "flag", "step", "status", "hints", "lab_version",
	"arrived", "first_passed", "seconds_to_pass", "attempts", "solution", "current", "regression", "caught_up", "mistake", "hands", "ack_seconds"}

// WriteCSV writes one row per learner and step (a long table a
// spreadsheet pivots as it likes), after a UTF-8 byte order mark:
// name (the roster's, else the one the learner chose), learner, lab,
// updated, flag, step, status, hints, lab_version, then arrived,
// first_passed, seconds_to_pass and attempts, then solution (the step's
// worked solution opened: true or false), current (the learner's
// current step, 0 when done) and regression (the step of the newest
// regression, empty for none), then (schema 3) caught_up, mistake,
// hands and ack_seconds (space-separated). New columns go last, so
// sheets made before them keep their columns. A learner with no steps
// (none yet, or a flagged record) gets one row with empty step columns,
// so nobody vanishes from the grade sheet.
func WriteCSV(w io.Writer, c Class) error {
	if _, err := io.WriteString(w, csvBOM); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	for _, l := range ToExport(c).Learners {
		name := l.Name
		if l.Listed != "" {
			name = l.Listed
		}
		current, regression := "", ""
		if len(l.Steps) > 0 {
			current = strconv.Itoa(l.Current)
		}
		if l.Regression != nil {
			regression = strconv.Itoa(l.Regression.Step)
		}
		if len(l.Steps) == 0 {
			_ = cw.Write([]string{name, l.Learner, l.Lab, stamp(l.Updated), string(l.Flag), "", "", "", l.LabVersion, "", "", "", "", "", current, regression, "", "", "", ""})
		}
		for _, s := range l.Steps {
			secs := ""
			if d, ok := s.Record().TimeToPass(); ok {
				secs = strconv.Itoa(int(d / time.Second))
			}
			_ = cw.Write([]string{name, l.Learner, l.Lab, stamp(l.Updated), string(l.Flag), strconv.Itoa(s.Number), string(s.Status),
				strconv.Itoa(s.Hints), l.LabVersion, stamp(s.Arrived), stamp(s.FirstPassed), secs, strconv.Itoa(s.Attempts),
				strconv.FormatBool(s.Solution), current, regression,
				strconv.FormatBool(s.CaughtUp), s.Mistake, strconv.Itoa(s.Hands), joinInts(s.AckSeconds)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	return nil
}

// joinInts is ns space-separated ("" for none).
func joinInts(ns []int) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return strings.Join(out, " ")
}

// stamp is a time in RFC 3339, UTC, or "" when unset.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
