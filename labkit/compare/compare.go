// Package compare sets a learner's files of one step beside the lab's
// reference for that step, as a line diff (go-udiff), and names the
// differences the lab declares equivalent in verify.toml with its reason:
// what the TUI shows once a step passed. The reference of a step is what
// its verify.toml solution puts in the lab root (files copied from the
// answers, written, edited); what its script does to the cluster is no
// file and is only said to exist.
package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/pelletier/go-toml/v2"
	yaml "go.yaml.in/yaml/v3"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit/action"
	"github.com/labhub/labmate/observe"
)

// Kind says which side a diff line is from.
type Kind int

const (
	Both      Kind = iota // a line of context, the same on both sides
	Reference             // only in the lab's reference
	Learner               // only in the learner's file
)

// Line is one line of a diff.
type Line struct {
	Kind Kind
	Text string
}

// Hunk is a run of changed lines with their context; RefLine and
// LearnerLine are the 1-based lines it starts at on each side.
type Hunk struct {
	RefLine, LearnerLine int
	Lines                []Line
}

// File is one file of a step's reference beside the learner's.
type File struct {
	Path string // relative to the lab root
	// Missing: the learner has no such file; Unread says why it could not
	// be read (not a regular file, too large, not text), in Korean.
	Missing bool
	Unread  string
	// Same: byte for byte; SameMeaning: both parse (YAML, TOML) to the
	// same values although the text differs (order, quoting, comments).
	Same, SameMeaning bool
	Hunks             []Hunk
}

// Explained is a difference of the learner's file that the lab declares
// equivalent: where (a file and its field), the declaration as written,
// the author's reason, and the key of the lab's message that explains it
// to a learner (verify.toml's explain; empty when it gives none).
type Explained struct {
	File, Field, Declared, Reason, Explain string
}

// Comparison is one step's files beside its reference.
type Comparison struct {
	Step      int
	Files     []File
	Explained []Explained
	// Script says the step's reference also runs commands (verify.toml's
	// solve.run): what they did is not in a file.
	Script bool
}

// Context is how many unchanged lines a hunk shows around a change.
const Context = 2

// Files are the files step n's reference puts in the lab root, in the
// order verify.toml names them; none for a lab without verify.toml or a
// step whose solution is only a script. It reads nothing: the TUI offers
// the comparison by it.
func Files(lab *content.Lab, n int) []string {
	vs := verifyStep(lab, n)
	if vs == nil {
		return nil
	}
	// What the solution writes (action.Paths), less what it removes.
	removed := map[string]bool{}
	for _, r := range vs.Solve.Remove {
		removed[action.Clean(r)] = true
	}
	return slices.DeleteFunc(action.Paths(vs.Solve), func(p string) bool { return p == "" || removed[p] })
}

func verifyStep(lab *content.Lab, n int) *content.VerifyStep {
	s := lab.Step(n)
	if s == nil || lab.Verify == nil {
		return nil
	}
	for i := range lab.Verify.Steps {
		if lab.Verify.Steps[i].ID == s.ID {
			return &lab.Verify.Steps[i]
		}
	}
	return nil
}

// Of compares step n's files under root with the lab's reference. It
// reads the learner's files as the file source does (capped, never
// waiting on a FIFO) and the reference from the lab's own directory.
func Of(lab *content.Lab, n int, root string) Comparison {
	c := Comparison{Step: n}
	vs := verifyStep(lab, n)
	if vs == nil {
		return c
	}
	c.Script = strings.TrimSpace(vs.Solve.Run) != ""
	for _, p := range Files(lab, n) {
		ref, err := reference(lab, vs.Solve, p)
		if err != nil {
			c.Files = append(c.Files, File{Path: p, Unread: content.Msg("compare.no_reference", "err", err)})
			continue
		}
		f, mine := learnerFile(root, p)
		if mine != nil {
			f = diff(p, ref, mine)
			c.Explained = append(c.Explained, explain(vs.Equivalent, p, ref, mine)...)
		}
		c.Files = append(c.Files, f)
	}
	return c
}

// reference is file p as step's solution writes it: copied from the
// answers, written, then edited in order (verify.toml's action).
func reference(lab *content.Lab, a content.Action, p string) ([]byte, error) {
	var body []byte
	var err error
	if slices.Contains(a.Files, p) || slices.Contains(a.Executable, p) {
		if body, err = lab.ReadFile(path.Join(lab.Answers, p)); err != nil {
			return nil, err
		}
	}
	for _, w := range a.Write {
		if w.Path == p {
			body = []byte(w.Content)
		}
	}
	edited := false
	for _, e := range a.Edit {
		if e.Path != p {
			continue
		}
		if !edited && body == nil {
			if body, err = lab.ReadFile(path.Join(lab.Answers, p)); err != nil {
				return nil, err
			}
		}
		edited = true
		body = bytes.Replace(body, []byte(e.Old), []byte(e.New), 1)
	}
	return body, nil
}

// learnerFile reads the learner's p; a File saying why when there is
// nothing to compare.
func learnerFile(root, p string) (File, []byte) {
	o := observe.ReadFile(root, p)
	switch o.State {
	case observe.FilePresent:
		if !textual(o.Content) {
			return File{Path: p, Unread: content.Msg("compare.not_text")}, nil
		}
		return File{}, o.Content
	case observe.FileMissing:
		return File{Path: p, Missing: true}, nil
	}
	return File{Path: p, Unread: content.Msg("compare.unreadable", "state", string(o.State))}, nil
}

// textual: UTF-8 without NUL bytes, as the file checks read text.
func textual(b []byte) bool {
	return !bytes.ContainsRune(b, 0) && strings.ToValidUTF8(string(b), "\uFFFD") == string(b)
}

// diff is the line diff of the learner's file against the reference.
func diff(p string, ref, mine []byte) File {
	f := File{Path: p, Same: bytes.Equal(ref, mine)}
	if f.Same {
		return f
	}
	a, b := withNewline(string(ref)), withNewline(string(mine))
	u, err := udiff.ToUnifiedDiff("reference", "learner", a, udiff.Strings(a, b), Context)
	if err != nil { // edits from udiff itself are consistent
		return File{Path: p, Unread: err.Error()}
	}
	for _, h := range u.Hunks {
		hk := Hunk{RefLine: h.FromLine, LearnerLine: h.ToLine}
		for _, l := range h.Lines {
			k := Both
			switch l.Kind {
			case udiff.Delete:
				k = Reference
			case udiff.Insert:
				k = Learner
			}
			hk.Lines = append(hk.Lines, Line{Kind: k, Text: strings.TrimSuffix(l.Content, "\n")})
		}
		f.Hunks = append(f.Hunks, hk)
	}
	if va, oka := parsed(p, ref); oka {
		if vb, okb := parsed(p, mine); okb {
			f.SameMeaning = len(differences(va, vb, "")) == 0
		}
	}
	return f
}

// withNewline ends a text with a newline, so a last line without one
// does not show as changed.
func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// parsed is the file's values by its language (YAML, every document;
// TOML), ok false for another language or a file that does not parse.
func parsed(p string, b []byte) (any, bool) {
	switch strings.ToLower(path.Ext(p)) {
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(b))
		var docs []any
		for {
			var v any
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				return docs, true
			}
			if err != nil {
				return nil, false
			}
			docs = append(docs, v)
		}
	case ".toml":
		var v map[string]any
		if err := toml.Unmarshal(b, &v); err != nil {
			return nil, false
		}
		return v, true
	}
	return nil, false
}

// differences are the fields where a and b differ, spelled as labmate's
// checks and verify.toml spell them (spec.containers[0].name; a key with
// a dot or a slash in brackets), the topmost that differ.
func differences(a, b any, at string) []string {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok {
			return []string{at}
		}
		if at == "" && len(x) == len(y) { // YAML's documents
			var out []string
			for i := range x {
				out = append(out, differences(x[i], y[i], "")...)
			}
			return out
		}
		var out []string
		for i := 0; i < max(len(x), len(y)); i++ {
			p := fmt.Sprintf("%s[%d]", at, i)
			if i >= len(x) || i >= len(y) {
				out = append(out, p)
				continue
			}
			out = append(out, differences(x[i], y[i], p)...)
		}
		return out
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return []string{at}
		}
		var keys []string
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var out []string
		for _, k := range keys {
			va, oka := x[k]
			vb, okb := y[k]
			p := JoinKey(at, k)
			if !oka || !okb {
				out = append(out, p)
				continue
			}
			out = append(out, differences(va, vb, p)...)
		}
		return out
	}
	if fmt.Sprintf("%T %v", a, a) != fmt.Sprintf("%T %v", b, b) {
		return []string{at}
	}
	return nil
}

// JoinKey extends a field path the way labmate's checks name fields:
// dotted, a key with a dot, a slash or a bracket in brackets.
func JoinKey(p, key string) string {
	if strings.ContainsAny(key, "./[]") {
		return p + "[" + key + "]"
	}
	if p == "" {
		return key
	}
	return p + "." + key
}

// explain are the declared equivalents of a step that name a field where
// the learner's file p differs from the reference: `under = "FILE PATH"`
// for a field at PATH or below it, a `field` or `live` mutant of FILE
// for its own field (the reason speaks of the field, whatever value the
// learner wrote there).
func explain(eqs []content.Equivalent, p string, ref, mine []byte) []Explained {
	va, oka := parsed(p, ref)
	vb, okb := parsed(p, mine)
	if !oka || !okb {
		return nil
	}
	diffs := differences(va, vb, "")
	var out []Explained
	for _, e := range eqs {
		file, field, declared := declaredField(e)
		if file != p {
			continue
		}
		for _, d := range diffs {
			if d == field || strings.HasPrefix(d, field+".") || strings.HasPrefix(d, field+"[") {
				out = append(out, Explained{File: p, Field: d, Declared: declared, Reason: e.Reason, Explain: e.Explain})
				break
			}
		}
	}
	return out
}

// declaredField reads the file and field an equivalent names (verify's
// mutant names: "field FILE OP PATH [VALUE]", "live FILE OP PATH ...",
// or under's "FILE PATH"); empty for one about no field (drop, early).
func declaredField(e content.Equivalent) (file, field, declared string) {
	if u := strings.TrimSpace(e.Under); u != "" {
		f, p, _ := strings.Cut(u, " ")
		return f, strings.TrimSpace(p), "under = " + u
	}
	w := strings.Fields(e.Mutant)
	if len(w) >= 4 && (w[0] == "field" || w[0] == "live") {
		return w[1], w[3], e.Mutant
	}
	return "", "", e.Mutant
}
