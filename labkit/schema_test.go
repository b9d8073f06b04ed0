package labkit

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/content"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

var updateSchemas = flag.Bool("update", false, "rewrite schema/*.json")

// The published schemas (schema/*.json) are exactly what the Go types
// labmate decodes lab.toml and verify.toml into make of them; `go test
// ./labkit -run TestSchemasArePublished -update` rewrites them.
func TestSchemasArePublished(t *testing.T) {
	lab, verify, err := Schemas()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{"lab.schema.json": lab, "verify.schema.json": verify} {
		file := filepath.Join("..", "schema", name)
		if *updateSchemas {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (go test ./labkit -run TestSchemasArePublished -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the Go types make: go test ./labkit -run TestSchemasArePublished -update", file)
		}
	}
}

// compileSchema compiles a published schema with a JSON Schema validator
// of its own (not the library that wrote it).
func compileSchema(t *testing.T, name string) *sjs.Schema {
	t.Helper()
	c := sjs.NewCompiler()
	raw, err := os.ReadFile(filepath.Join("..", "schema", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tomlAsJSON decodes a TOML document as a JSON validator reads JSON.
func tomlAsJSON(t *testing.T, raw []byte) any {
	t.Helper()
	var tree map[string]any
	if err := toml.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	v, err := sjs.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every shipped lab's lab.toml and verify.toml are valid by the
// published schemas, and each names its schema for Taplo.
func TestLabsMeetTheirSchemas(t *testing.T) {
	schemas := map[string]*sjs.Schema{
		"lab.toml":    compileSchema(t, "lab.schema.json"),
		"verify.toml": compileSchema(t, "verify.schema.json"),
	}
	dirs, _ := filepath.Glob(filepath.Join("..", "content", "labs", "*", "lab.toml"))
	if len(dirs) < 3 {
		t.Fatalf("found %d labs", len(dirs))
	}
	for _, lt := range dirs {
		dir := filepath.Dir(lt)
		for file, s := range schemas {
			raw, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(tomlAsJSON(t, raw)); err != nil {
				t.Errorf("%s/%s: %v", dir, file, err)
			}
			first, _, _ := strings.Cut(string(raw), "\n")
			want := "#:schema ../../../schema/" + strings.TrimSuffix(file, ".toml") + ".schema.json"
			if first != want {
				t.Errorf("%s/%s begins %q, not %q", dir, file, first, want)
			}
		}
	}
}

// The lab `lab new` writes meets the schemas its `#:schema` lines name.
func TestTheScaffoldMeetsItsSchemas(t *testing.T) {
	files, err := content.Scaffold("first-lab", "first-lab", "../../../schema")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range files {
		name := strings.TrimSuffix(f.Path, ".toml")
		if name != "lab" && name != "verify" {
			continue
		}
		seen++
		if err := compileSchema(t, name+".schema.json").Validate(tomlAsJSON(t, f.Data)); err != nil {
			t.Errorf("the scaffold's %s: %v", f.Path, err)
		}
		if first, _, _ := strings.Cut(string(f.Data), "\n"); first != "#:schema ../../../schema/"+name+".schema.json" {
			t.Errorf("the scaffold's %s begins %q", f.Path, first)
		}
	}
	if seen != 2 {
		t.Errorf("the scaffold has %d of lab.toml and verify.toml", seen)
	}
}

// The schema refuses what the decoder refuses: a key no check type
// reads, a key of another type than the check's, a misspelt type, a
// key lab.toml does not have; and it takes a check of each type.
func TestTheLabSchemaRefusesWhatTheDecoderRefuses(t *testing.T) {
	s := compileSchema(t, "lab.schema.json")
	head := "id = \"x\"\ntitle = \"t\"\n[[steps]]\nnumber = 1\nid = \"a\"\ntitle = \"t\"\n[[steps.checks]]\nid = \"c\"\n"
	for body, ok := range map[string]bool{
		"type = \"file\"\npath = \"a\"\n":                                true,
		"type = \"field\"\npath = \"a.toml\"\nkey = \"k\"\nequals = 1\n": true,
		"type = \"manifest\"\npath = \"a\"\napi_version = \"v1\"\nkind = \"Pod\"\n[[steps.checks.rules]]\nexpr = \"true\"\nfail = \"f\"\n": true,
		"type = \"file\"\npath = \"a\"\nexecutabel = true\n":                                                                               false,
		"type = \"file\"\npath = \"a\"\nkey = \"k\"\n":                                                                                     false,
		"type = \"fiel\"\npath = \"a\"\n":                                                                                                  false,
		"type = \"file\"\n":                                                                                                                false,
		"type = \"manifest\"\npath = \"a\"\napi_version = \"v1\"\nkind = \"Pod\"\n[[steps.checks.rules]]\nexpr = \"true\"\nfial = \"f\"\n": false,
	} {
		err := s.Validate(tomlAsJSON(t, []byte(head+body)))
		if ok && err != nil {
			t.Errorf("refused:\n%s\n%v", body, err)
		}
		if !ok && err == nil {
			t.Errorf("taken:\n%s", body)
		}
	}
	if err := s.Validate(tomlAsJSON(t, []byte("id = \"x\"\ntitle = \"t\"\ntitel = \"t\"\n"))); err == nil {
		t.Error("a key lab.toml does not have was taken")
	}
}

// Every key of both schemas, at any depth, and every check type has a
// Korean description from content/schema.toml, and schema.toml names
// nothing the schemas do not have: a new field cannot ship undocumented,
// nor a renamed one keep a stale text.
func TestEveryKeyHasAKoreanDescription(t *testing.T) {
	lab, verify, err := Schemas()
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string][]byte{"lab": lab, "verify": verify} {
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		n := 0
		var walk func(v any, path string)
		walk = func(v any, path string) {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			if props, ok := m["properties"].(map[string]any); ok {
				for k, p := range props {
					pm, _ := p.(map[string]any)
					n++
					if d, _ := pm["description"].(string); !hangul(d) {
						t.Errorf("%s schema: %s%s has no Korean description: %q", name, path, k, d)
					}
					walk(p, path+k+".")
				}
			}
			walk(m["items"], path)
		}
		walk(doc, "")
		if n < 40 {
			t.Errorf("%s schema: only %d keys found", name, n)
		}
	}
	var doc map[string]any
	_ = json.Unmarshal(lab, &doc)
	typ := doc["properties"].(map[string]any)["steps"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)["checks"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)
	docs := typ["x-taplo"].(map[string]any)["docs"].(map[string]any)["enumValues"].([]any)
	if len(docs) != len(typ["enum"].([]any)) {
		t.Fatalf("%d type descriptions for %d types", len(docs), len(typ["enum"].([]any)))
	}
	for i, d := range docs {
		if s, _ := d.(string); !hangul(s) {
			t.Errorf("check type %v has no Korean description: %q", typ["enum"].([]any)[i], d)
		}
	}
}

// A key schema.toml does not describe, one it describes that the
// schema does not have, a check type without a description and a
// description of no type each stop the schemas being made, by name.
func TestSchemasRefuseUndescribedAndUnknownKeys(t *testing.T) {
	full := func() schemaDocs {
		var d schemaDocs
		var err error
		for _, tb := range []struct {
			m   *map[string]string
			tab content.SchemaTable
		}{{&d.lab, content.SchemaLab}, {&d.verify, content.SchemaVerify}, {&d.types, content.SchemaCheckTypes}} {
			m, err2 := content.SchemaText(tb.tab)
			if err2 != nil {
				err = err2
			}
			*tb.m = maps.Clone(m)
		}
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if _, _, err := schemas(full()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(*schemaDocs)
		want string
	}{
		{"undescribed lab key", func(d *schemaDocs) { delete(d.lab, "steps.checks.rules.show") }, "lab.toml: the key steps.checks.rules.show has no description"},
		{"undescribed verify key", func(d *schemaDocs) { delete(d.verify, "steps.wrong.edit.old") }, "verify.toml: the key steps.wrong.edit.old has no description"},
		{"unknown lab key", func(d *schemaDocs) { d.lab["steps.titel"] = "제목" }, "describes steps.titel of lab.toml"},
		{"unknown verify key", func(d *schemaDocs) { d.verify["steps.solve.case"] = "이름" }, "describes steps.solve.case of verify.toml"},
		{"undescribed type", func(d *schemaDocs) { delete(d.types, "witness") }, `check type "witness" has no description`},
		{"unknown type", func(d *schemaDocs) { d.types["fiel"] = "파일" }, `describes "fiel", which is no check type`},
	} {
		d := full()
		c.edit(&d)
		if _, _, err := schemas(d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}
}

// hangul reports whether s has a Hangul letter.
func hangul(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }) >= 0
}
