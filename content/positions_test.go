package content

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestKeyPositions(t *testing.T) {
	raw := []byte(`timeout_seconds = 10

[[steps]]
id = "script"
solve.executable = ["bin/reload.sh"]

[[steps.wrong]]
case = "a"
check = "exists"

[[steps]]
id = "config"
solve.edit = [{ path = "x", old = "1" },
  { path = "x", old = "2" }]

[[steps.wrong]]
case = "b"

[[steps.wrong]]
  check = "port"

[nginx.port]
hint = "x"
"quoted.key" = "y"
`)
	at := keyPositions(raw)
	for path, want := range map[string]Span{
		"timeout_seconds":          {Line: 1, Col: 1},
		"steps.0":                  {Line: 3, Col: 3},
		"steps.0.id":               {Line: 4, Col: 1},
		"steps.0.solve.executable": {Line: 5, Col: 7},
		"steps.0.wrong.0.check":    {Line: 9, Col: 1},
		"steps.1.id":               {Line: 12, Col: 1},
		"steps.1.solve.edit.1.old": {Line: 14, Col: 17},
		"steps.1.wrong.0.case":     {Line: 17, Col: 1},
		"steps.1.wrong.1.check":    {Line: 20, Col: 3},
		"nginx.port.hint":          {Line: 23, Col: 1},
		"nginx.port.quoted.key":    {Line: 24, Col: 1},
	} {
		if got := at[path]; got.Line != want.Line || got.Col != want.Col {
			t.Errorf("%s at %d:%d, want %d:%d", path, got.Line, got.Col, want.Line, want.Col)
		}
	}
	if len(keyPositions([]byte("a = [\n"))) != 0 {
		t.Error("a document that does not parse has positions")
	}
}

// A lab's texts know where they are written, and Msg keeps, by key, the
// placeholders its callers left unfilled.
func TestMessagesKnowTheirPlace(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"lab.toml":           "id = \"pos\"\ntitle = \"자리\"\n",
		"messages.toml":      "[pos.a]\nmissing = \"{path} {이/가} 없습니다\"\n",
		"messages-more.toml": "\n[pos.b]\n  typo = \"{gto} 입니다: {want} {이어야/여야} 합니다\"\n",
		"verify.toml":        "[[steps]]\nid = \"one\"\n\n[[steps.wrong]]\ncase = \"x\"\ncheck = \"no-cgroup\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.MsgWhere("pos.b.typo"); got != "messages-more.toml:3:3" {
		t.Errorf("pos.b.typo is at %q", got)
	}
	if got := l.MsgWhere("pos.a.missing"); got != "messages.toml:2:1" {
		t.Errorf("pos.a.missing is at %q", got)
	}
	if got := l.MsgWhere("files.key.ok"); got != Msg("content.shared_text") {
		t.Errorf("a shared key is at %q", got)
	}
	if tpl, ok := l.MsgTemplate("pos.b.typo"); !ok || !slices.Equal(Placeholders(tpl), []string{"gto", "want"}) {
		t.Errorf("template %q (%v): placeholders %v", tpl, ok, Placeholders(tpl))
	}
	if at := l.VerifyAt("steps.0.wrong.0.check"); at.Line != 6 || at.Col != 1 {
		t.Errorf("the wrong case's check at %+v", at)
	}

	if got := l.Msg("pos.b.typo", "got", 1, "want", 2); got != "{gto} 입니다: 2 여야 합니다" {
		t.Errorf("filled %q", got)
	}
	l.Msg("pos.a.missing", "path", "x")
	if got := l.Unfilled(); len(got) != 1 || !slices.Equal(got["pos.b.typo"], []string{"gto"}) {
		t.Errorf("unfilled %v, want pos.b.typo's gto only", got)
	}
}

// Each check carries the texts its values name, resolved as the lab is
// read (the lab's own with their place, else the shared ones), and no
// value that names none.
func TestChecksCarryTheirTexts(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"lab.toml": "id = \"texts\"\ntitle = \"글\"\n\n[[steps]]\nid = \"one\"\ntitle = \"하나\"\n\n" +
			"[[steps.checks]]\nid = \"c\"\ntype = \"file\"\npath = \"x\"\nfail = \"t.fail\"\nhint = \"t.nowhere\"\n" +
			"why = { A = \"files.key.ok\" }\n\n[[steps.checks.rules]]\nexpect = \"t.expect\"\n",
		"messages.toml": "[t]\nfail = \"{path} 틀림\"\nexpect = \"기대\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	texts := l.Steps[0].Checks[0].Texts
	var keys []string
	for k := range texts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"files.key.ok", "t.expect", "t.fail"}; !slices.Equal(keys, want) {
		t.Fatalf("texts %v, want %v", keys, want)
	}
	if f := texts["t.fail"]; f.Text != "{path} 틀림" || !slices.Equal(f.Placeholders, []string{"path"}) || f.Place.String() != "messages.toml:2:1" {
		t.Errorf("t.fail resolved as %+v (%s)", f, f.Place)
	}
	if s := texts["files.key.ok"]; s.Place.String() != Msg("content.shared_text") || s.Text == "" {
		t.Errorf("a shared text resolved as %+v", s)
	}
	m := Message{Key: "content.unknown_keys", KV: []any{"keys", Message{Key: "content.shared_text"}}}
	if got, want := m.String(), Msg("content.unknown_keys", "keys", Msg("content.shared_text")); got != want {
		t.Errorf("a message with a message in it says %q, want %q", got, want)
	}
}
