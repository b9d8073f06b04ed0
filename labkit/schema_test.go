package labkit

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	"github.com/pelletier/go-toml/v2"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

var updateSchemas = flag.Bool("update", false, "rewrite schema/*.json")

// contentComments are the Go comments of package content's types, as
// the schemas' descriptions.
func contentComments(t *testing.T) map[string]string {
	t.Helper()
	r := &jsonschema.Reflector{}
	// The import path joined with the folder walked: labmate/content.
	if err := r.AddGoComments("github.com/labhub/labmate/content", "../content"); err != nil {
		t.Fatal(err)
	}
	return r.CommentMap
}

// The published schemas (schema/*.json) are exactly what the Go types
// labmate decodes lab.toml and verify.toml into make of them; `go test
// ./labkit -run TestSchemasArePublished -update` rewrites them.
func TestSchemasArePublished(t *testing.T) {
	lab, verify, err := Schemas(contentComments(t))
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
