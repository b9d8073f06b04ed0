package labkit

import (
	"fmt"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// fileType: a lab file exists, executable when asked.
type fileType struct{}

type fileFields struct {
	Path       string `toml:"path"`
	Executable bool   `toml:"executable"`
}

var fileKind = Kind{"file", "A lab file exists (any regular file, even empty), and is executable when asked. Its `fail` text is for a file that is not there (or not a readable regular file); a missing execute bit has its own shared text, with `hint` appended.", []Field{
	{"path", true, "The file, relative to the lab root."},
	{"executable", false, "`true`: the file must have an execute bit (`chmod +x`)."},
}, []Text{
	{"pass", []string{"path", "mode"}},
	{"fail", []string{"path", "where"}},
	{"expect", []string{"path"}},
}}

func (fileType) Kind() Kind     { return fileKind }
func (fileType) Vars() []string { return nil }

func (fileType) Compile(c *compiler) check {
	d := &fileCheck{base: c.base()}
	c.decode(&d.fileFields)
	return d
}

type fileCheck struct {
	base
	fileFields
}

func (d *fileCheck) Files() []string { return []string{d.Path} }
func (d *fileCheck) Live() bool      { return false }

func (d *fileCheck) Eval(in checks.Input, _ *view) (checks.Result, *checks.Fact) {
	rel, p := d.Path, checks.Shown(in, d.Path)
	f := in.Snap.File(rel)
	label := in.Msg("labkit.fact.file", "path", rel)
	if f.State != observe.FilePresent {
		_, bad := checks.ReadText(in, d.id, rel)
		if d.spec.Fail != "" {
			bad.Message = in.Msg(d.spec.Fail, "path", p, "where", rel)
		}
		return *bad, &checks.Fact{Label: label, Value: bad.Observed}
	}
	mode := fmt.Sprintf("%04o", f.Mode.Perm())
	seen := in.Msg("labkit.file.seen", "size", f.Size, "mode", mode)
	if d.Executable && f.Mode.Perm()&0o111 == 0 {
		r := checks.Fail(d.id, in.Msg("labkit.file.not_executable", "path", p, "mode", mode, "where", rel),
			text(in, d.spec.Expect, "labkit.file.expect_exec", "path", p), seen, rel)
		return r, &checks.Fact{Label: label, Value: seen}
	}
	r := checks.Pass(d.id, text(in, d.spec.Pass, "labkit.file.ok", "path", p, "mode", mode))
	r.Observed = seen
	return r, &checks.Fact{Label: label, Value: seen}
}
