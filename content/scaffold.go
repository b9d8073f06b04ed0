package content

import (
	"bytes"
	"embed"
	"io/fs"
	"path"
	"strings"
	"text/template"
)

// The scaffold `labmate lab new` writes: a lab of two steps (a file step
// and a cluster step) that proves green as it is made. Its files are
// scaffold/**/*.tmpl, each a text/template of the file without the
// suffix; {{.ID}} is the lab's ID (also its namespace), {{.Dir}} the
// directory named on the command line and {{.Schema}} the directory of
// lab.schema.json and verify.schema.json, relative to the lab's (its
// files' `#:schema` lines, which Taplo reads). {{ROOT}} is left as written: it
// is labmate's own placeholder, replaced at run time by the lab root.
//
//go:embed all:scaffold
var scaffoldFiles embed.FS

// ScaffoldFile is one file of a new lab.
type ScaffoldFile struct {
	Path string // slash-separated, relative to the lab's directory
	Data []byte
	// Executable: a script (its text starts with "#!"), written 0755.
	Executable bool
}

// Scaffold renders the new lab's files for id, whose directory the author
// named dir, in path order; schema is where the JSON Schemas are, a
// slash-separated path relative to the lab's directory.
func Scaffold(id, dir, schema string) ([]ScaffoldFile, error) {
	var out []ScaffoldFile
	err := fs.WalkDir(scaffoldFiles, "scaffold", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tmpl") {
			return err
		}
		raw, err := scaffoldFiles.ReadFile(p)
		if err != nil {
			return err
		}
		t, err := template.New(path.Base(p)).Option("missingkey=error").
			Funcs(template.FuncMap{"ROOT": func() string { return "{{ROOT}}" }}).Parse(string(raw))
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, struct{ ID, Dir, Schema string }{id, dir, schema}); err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, "scaffold/"), ".tmpl")
		out = append(out, ScaffoldFile{Path: rel, Data: b.Bytes(), Executable: bytes.HasPrefix(b.Bytes(), []byte("#!"))})
		return nil
	})
	return out, err
}
