package docs

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/verify"
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

// TestAuthoringAnswersAreTheFAQLab: every block of AUTHORING.md's
// "Questions authors ask" that starts with a file of testdata/faq-lab is
// in that file as written, and that lab loads without a problem and
// proves its file steps (lab verify --no-cluster): the answers show what
// labmate does.
func TestAuthoringAnswersAreTheFAQLab(t *testing.T) {
	raw, err := os.ReadFile("AUTHORING.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start := strings.Index(doc, "## Questions authors ask\n")
	if start < 0 {
		t.Fatal("AUTHORING.md has no section \"Questions authors ask\"")
	}
	section := doc[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	const prefix = "# docs/testdata/faq-lab/"
	quoted := 0
	for _, block := range strings.Split(section, "```toml\n")[1:] {
		body, _, _ := strings.Cut(block, "```")
		first, rest, _ := strings.Cut(body, "\n")
		if !strings.HasPrefix(first, prefix) {
			continue
		}
		quoted++
		file := filepath.Join("testdata", "faq-lab", strings.TrimPrefix(first, prefix))
		have, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("AUTHORING.md quotes %s: %v", file, err)
			continue
		}
		if !strings.Contains(string(have), rest) {
			t.Errorf("AUTHORING.md quotes %s, which does not have:\n%s", file, rest)
		}
	}
	if quoted < 9 {
		t.Errorf("%d blocks quote testdata/faq-lab, want every answer's example (9 or more)", quoted)
	}
	lab, err := labkit.OpenDir("testdata/faq-lab")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lab.Problems {
		t.Errorf("faq-lab: %v", p)
	}
	if testing.Short() {
		return
	}
	res, err := verify.Run(context.Background(), verify.Options{Lab: lab, Cluster: kube.Target{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Failed() {
		t.Errorf("faq-lab step %d %s: expected %s, seen %s", r.Step, r.Case, r.Expected, r.Seen)
	}
}
