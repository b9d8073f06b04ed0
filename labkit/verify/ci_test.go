package verify

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

// Each near-miss is one case, named by its exact change: a survivor and
// a false failure are failed cases, a kill or a declared equivalent a
// passed one, one another shard tries a skipped one; the table's rows
// that single them out are not cases again. The JUnit report counts the
// same and decodes.
func TestNearMissesAreCases(t *testing.T) {
	ms := []*Mutant{
		{Step: 2, Op: opField, Desc: "field a.yaml delete x", Outcome: outSurvived},
		{Step: 2, Op: opRestyle, Desc: "restyle a.yaml flow", Outcome: outFalseFail, By: "a.x"},
		{Step: 2, Op: opField, Desc: "field a.yaml delete y", Outcome: outKilled, By: "a.y"},
		{Step: 2, Op: opField, Desc: "field a.yaml delete z", Outcome: outEquivalent, Reason: "free"},
		{Step: 2, Op: opLive, Desc: "live a.yaml delete w", Outcome: outElsewhere},
	}
	rows := append([]Row{{Step: 2, Case: "참고 풀이", OK: true}},
		stepMutantRows(2, ms, []content.Equivalent{{Mutant: "field a.yaml delete z", Reason: "free"}})...)
	res := Result{Lab: "demo", Rows: rows, Mutants: ms}
	status := map[string]string{}
	for _, c := range res.Cases() {
		if _, dup := status[c.Name]; dup {
			t.Errorf("case %q twice", c.Name)
		}
		status[c.Name] = c.Status
	}
	want := map[string]string{
		"참고 풀이":                    CasePassed,
		"변이":                       CaseFailed, // the step's summary row
		"변이 field a.yaml delete x": CaseFailed,
		"변이 restyle a.yaml flow":   CaseFailed,
		"변이 field a.yaml delete y": CasePassed,
		"변이 field a.yaml delete z": CasePassed,
		"변이 live a.yaml delete w":  CaseSkipped,
	}
	for name, st := range want {
		if status[name] != st {
			t.Errorf("case %q is %q, want %q", name, status[name], st)
		}
	}
	if len(status) != len(want) {
		t.Errorf("cases %v, want exactly %v", status, want)
	}

	var b bytes.Buffer
	if err := res.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var doc JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Tests != 7 || doc.Failures != 3 || doc.Skipped != 1 || len(doc.Suites) != 1 {
		t.Errorf("tests %d failures %d skipped %d suites %d, want 7 3 1 1", doc.Tests, doc.Failures, doc.Skipped, len(doc.Suites))
	}
	for _, c := range doc.Suites[0].Cases {
		if c.Name == "변이 field a.yaml delete x" && (c.Failure == nil || !strings.Contains(c.Failure.Text, "field a.yaml delete x") && !strings.Contains(c.Failure.Message, "통과")) {
			t.Errorf("the survivor's case: %+v", c)
		}
	}
}

// Text a CI parser cannot hold in XML (a control character of a learner's
// file) still leaves a document that decodes.
func TestJUnitDecodesWithControlCharacters(t *testing.T) {
	res := Result{Lab: "demo", Rows: []Row{{Step: 1, Case: "오답 \x1b]2;x\x07", Seen: "\x00\x1b[2J"}}}
	var b bytes.Buffer
	if err := res.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var doc JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%q", err, b.String())
	}
	if doc.Failures != 1 {
		t.Errorf("failures %d, want 1", doc.Failures)
	}
}
