package trace

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labhub/labmate/content"
)

// failFS fails every Open with err.
type failFS struct{ err error }

func (f failFS) Open(string) (fs.File, error) { return nil, f.err }

// A lab has no reference run when it names none or its file is missing;
// any other failure to read the file is said as such, naming the file and
// keeping the cause; a file that is there is read.
func TestReferenceOf(t *testing.T) {
	head, err := os.ReadFile("testdata/good/header-only.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	noRef := content.Msg("trace.no_reference", "lab", "demo")
	for _, c := range []struct {
		name string
		run  string
		fsys fs.FS
	}{
		{"names none", "", fstest.MapFS{"run.jsonl": {Data: head}}},
		{"file missing", "run.jsonl", fstest.MapFS{}},
	} {
		l := &content.Lab{ID: "demo", ReferenceRun: c.run, FS: c.fsys}
		if _, err := ReferenceOf(l); err == nil || err.Error() != noRef {
			t.Errorf("%s: err = %v, want %q", c.name, err, noRef)
		}
		if HasReferenceOf(l) {
			t.Errorf("%s: HasReferenceOf says yes", c.name)
		}
	}

	cause := errors.New("disk on fire")
	l := &content.Lab{ID: "demo", ReferenceRun: "run.jsonl", FS: failFS{cause}, Where: "labs/demo"}
	_, err = ReferenceOf(l)
	want := content.Msg("trace.reference_unreadable", "lab", "demo", "path", "labs/demo/run.jsonl")
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, cause) {
		t.Errorf("unreadable file: err = %v, want %q wrapping %q", err, want, cause)
	}

	l = &content.Lab{ID: "demo", ReferenceRun: "run.jsonl", FS: fstest.MapFS{"run.jsonl": {Data: head}}}
	tr, err := ReferenceOf(l)
	if err != nil || tr.Name != ReferenceName {
		t.Fatalf("present file: %+v, %v", tr, err)
	}
	if !HasReferenceOf(l) {
		t.Error("HasReferenceOf says no for a file that is there")
	}
}
