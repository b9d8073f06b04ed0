package verify

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit"
)

// A placeholder a check left unfilled is named by its message key and
// where its text is written, with the text.
func TestPlaceholderRowNamesTheKeyAndItsLine(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"lab.toml":      "id = \"rows\"\ntitle = \"행\"\n",
		"messages.toml": "[rows]\nok = \"{path} {이/가} 있습니다\"\n\n[rows.go]\nshown = \"{gto} 개를 셌습니다\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lab, err := content.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &prover{o: Options{Progress: io.Discard}, text: lab}
	lab.Msg("rows.ok", "path", "a")
	if rows := p.textRows(); !rows[1].OK {
		t.Fatalf("every placeholder filled, yet: %+v", rows[1])
	}
	lab.Msg("rows.go.shown", "got", 3) // a Go check's typo
	holes := p.textRows()[1]
	if holes.OK || !strings.Contains(holes.Seen, "rows.go.shown (messages.toml:5:1)") || !strings.Contains(holes.Seen, "{gto}") ||
		!strings.Contains(holes.Seen, "개를 셌습니다") {
		t.Errorf("row %+v does not name the key, its line and the placeholder", holes)
	}
}

// A step that shows nothing of its own (it passed, or waits with every
// check passed) is worded without a dangling label.
func TestDescribeLeavesNoDanglingLabel(t *testing.T) {
	rep := engine.Report{Steps: []engine.StepResult{
		{Number: 1, Status: checks.Failed, Checks: []checks.Result{{ID: "a.x", Status: checks.Failed, Message: "틀림"}}},
		{Number: 2, Status: checks.Passed, Checks: []checks.Result{{ID: "b.y", Status: checks.Passed}}},
	}}
	got := describe(rep, 2)
	for _, part := range strings.Split(got, "; ") {
		if strings.HasSuffix(strings.TrimSpace(part), ":") {
			t.Errorf("%q ends in a dangling label (in %q)", part, got)
		}
	}
	if !strings.Contains(got, "a.x") || !strings.Contains(got, "2단계") {
		t.Errorf("describe = %q", got)
	}
}

// lab verify fails a lab whose page holds a control character, at the
// page's file and line (install and pack refuse it the same way, through
// the same compile problems).
func TestControlCharacterFailsTheCompileRow(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"lab.toml": "id = \"ctl\"\ntitle = \"제어\"\nintro = \"intro.md\"\n",
		"intro.md": "# 소개\n\n첫 줄\n\x1b]52;c;UFdORUQ=\x07\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kit, err := labkit.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	row := staticRows(kit, 60)[0]
	if row.OK || !strings.Contains(row.Seen, "intro.md:4:1") || !strings.Contains(row.Seen, "U+001B ESC") {
		t.Errorf("compile row does not refuse the control character at intro.md:4:1: %+v", row)
	}
}

// The closing page is a page like the others: rendered within the pane,
// its control characters refused at its line, and an equivalent's
// explain must name a message of the lab.
func TestFinishPageAndExplainAreChecked(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"lab.toml":    "id = \"fin\"\ntitle = \"끝\"\nintro = \"intro.md\"\nfinish = \"finish.md\"\n\n[[steps]]\nnumber = 1\nid = \"a\"\ntitle = \"하나\"\nbody = \"intro.md\"\n\n[[steps.checks]]\nid = \"f\"\ntype = \"file\"\npath = \"a.txt\"\n",
		"intro.md":    "# 소개\n",
		"finish.md":   "# 마무리\n\n\x07\n\n{{NOPE}} 가 남았습니다.\n",
		"verify.toml": "[[steps]]\nid = \"a\"\nsolve.files = [\"a.txt\"]\n\n[[steps.equivalent]]\nmutant = \"field a.txt delete x\"\nreason = \"이유\"\nexplain = \"fin.nope\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kit, err := labkit.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := staticRows(kit, 60)
	all := ""
	for _, r := range rows {
		all += r.Seen + "\n"
	}
	for _, want := range []string{"finish.md:3:1", "fin.nope", "마무리", "{{NOPE}}"} {
		if !strings.Contains(all, want) {
			t.Errorf("the rows do not say %q:\n%s", want, all)
		}
	}
}
