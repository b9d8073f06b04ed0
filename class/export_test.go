package class

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

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
