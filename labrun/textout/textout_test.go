package textout

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/termtext/termtexttest"
)

// check --json keeps what the learner's files and the cluster hold as
// they are (JSON escapes a control character as \u001b, so nothing
// reaches a terminal); the table for people shows it escaped.
func TestCheckJSONKeepsRawTextTheTableEscapesIt(t *testing.T) {
	rep := engine.Report{Title: "t", Steps: []engine.StepResult{{Number: 1, Status: checks.Failed,
		Checks:   []checks.Result{{ID: "c", Status: checks.Failed, Message: "msg " + termtexttest.Hostile}},
		Observed: []checks.Fact{{Label: "value", Value: termtexttest.Hostile}}}},
		Problems: []string{"problem " + termtexttest.Hostile}}
	var out bytes.Buffer
	if _, err := Report(&out, rep, 0, true); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(out.String(), 0x1b) || !strings.Contains(out.String(), `\u001b]52;`) {
		t.Errorf("JSON does not escape the control characters:\n%s", out.String())
	}
	var back engine.Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Steps[0].Checks[0].Message != "msg "+termtexttest.Hostile || back.Steps[0].Observed[0].Value != termtexttest.Hostile {
		t.Errorf("JSON does not keep the raw strings: %+v", back.Steps[0])
	}
	out.Reset()
	if _, err := Report(&out, rep, 0, false); err != nil {
		t.Fatal(err)
	}
	termtexttest.AssertOnlyStyling(t, out.String(), "msg "+termtexttest.Shown, "problem "+termtexttest.Shown)
}
