package docs

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/labhub/labmate/labkit"
)

var update = flag.Bool("update", false, "rewrite the generated part of AUTHORING.md")

const (
	genStart = "<!-- generated: labkit.Reference; do not edit by hand -->\n"
	genEnd   = "<!-- end generated -->"
)

// TestAuthoringReferenceIsGenerated: the declarative check reference in
// AUTHORING.md is exactly labkit.Reference(), the table the kit validates
// checks with. With -update it is rewritten.
func TestAuthoringReferenceIsGenerated(t *testing.T) {
	raw, err := os.ReadFile("AUTHORING.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start := strings.Index(doc, genStart)
	end := strings.Index(doc, genEnd)
	if start < 0 || end < start {
		t.Fatalf("AUTHORING.md has no generated section (%q ... %q)", genStart, genEnd)
	}
	have := doc[start+len(genStart) : end]
	want := labkit.Reference()
	if have == want {
		return
	}
	if *update {
		if err := os.WriteFile("AUTHORING.md", []byte(doc[:start+len(genStart)]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("AUTHORING.md's check reference drifted from the check types (labkit.Kinds()); run go test ./docs -run Authoring -update")
}
