// Package content holds every piece of user-facing Korean text and every
// lab as data. Shared text (the UI, the CLI, the messages of the check
// primitives) is in the *.toml files here; each lab is a directory under
// labs/<id>/ (its lab.toml, intro, steps, hints, solutions, messages,
// reference answers, reference run and verify data), embedded whole, so
// adding a lab edits no Go directive. LoadDir reads the same layout from
// a directory on disk (an author's lab in progress).
package content

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

//go:embed *.toml all:labs
var files embed.FS

// labsDir is where the embedded labs live, one directory each.
const labsDir = "labs"

var (
	sharedOnce sync.Once
	shared     map[string]string
	// sharedErr is what stopped the shared text loading (a test fails on
	// it); labmate still runs, showing keys for the missing texts.
	sharedErr error

	labsOnce sync.Once
	labs     map[string]*Lab
	labErrs  map[string]error
	labIDs   []string
)

// loadShared reads every top-level *.toml but schema.toml: ui.toml
// (strings every part shares), ui-*.toml (one part's strings each) and
// checks.toml (the check primitives' messages).
func loadShared() {
	shared = map[string]string{}
	names, _ := fs.Glob(files, "*.toml")
	slices.Sort(names)
	for _, name := range names {
		if name == schemaFile {
			continue // an author's editor reads it, not a learner (schema.go)
		}
		raw, err := files.ReadFile(name)
		if err == nil {
			err = flattenMessages(name, raw, shared)
		}
		if err != nil {
			sharedErr = err
			return
		}
	}
}

// loadLabs reads every embedded lab. A lab that does not load is kept as
// its error: the others still load.
func loadLabs() {
	labs, labErrs = map[string]*Lab{}, map[string]error{}
	entries, _ := fs.ReadDir(files, labsDir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub, err := fs.Sub(files, path.Join(labsDir, e.Name()))
		if err != nil {
			labErrs[e.Name()] = err
			labIDs = append(labIDs, e.Name())
			continue
		}
		l, err := loadLab(sub, path.Join("content", labsDir, e.Name()))
		id := e.Name()
		if l != nil && l.ID != "" {
			id = l.ID
		}
		if err == nil && l.ID != e.Name() {
			err = &Problem{File: path.Join("content", labsDir, e.Name(), "lab.toml"), Msg: Msg("content.id_dir", "id", l.ID, "dir", e.Name())}
		}
		labIDs = append(labIDs, id)
		if err != nil {
			labErrs[id] = err
			continue
		}
		l.Embedded = true
		labs[id] = l
	}
	slices.Sort(labIDs)
}

// IDs returns the IDs of the installed (embedded) labs, sorted, including
// any that fail to load (Load says why).
func IDs() []string {
	labsOnce.Do(loadLabs)
	return slices.Clone(labIDs)
}

// Load returns an installed lab by ID.
func Load(id string) (*Lab, error) {
	labsOnce.Do(loadLabs)
	if err, bad := labErrs[id]; bad {
		return nil, err
	}
	l, ok := labs[id]
	if !ok {
		return nil, fmt.Errorf("%s", Msg("content.no_lab", "lab", id, "labs", strings.Join(labIDs, ", ")))
	}
	return l, nil
}

// flattenMessages merges a TOML table of key = "text" into into. Nested
// tables become dotted keys; a key defined twice is an error.
func flattenMessages(name string, raw []byte, into map[string]string) error {
	tree, err := decodeTree(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var walk func(prefix string, v any) error
	walk = func(prefix string, v any) error {
		switch t := v.(type) {
		case map[string]any:
			for k, sub := range t {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				if err := walk(key, sub); err != nil {
					return err
				}
			}
		case string:
			if _, dup := into[prefix]; dup {
				return fmt.Errorf("%s: message %q defined twice", name, prefix)
			}
			into[prefix] = t
		default:
			return fmt.Errorf("%s: message %q is not a string", name, prefix)
		}
		return nil
	}
	return walk("", tree)
}

// Msg returns the shared Korean message for key with {name} placeholders
// filled from kv pairs ("name", value, ...). An unknown key returns the key
// itself so a missing text is visible but never fatal; a test keeps keys
// complete.
func Msg(key string, kv ...any) string {
	sharedOnce.Do(loadShared)
	t, ok := shared[key]
	if !ok {
		t = key
	}
	return fill(t, kv)
}

// Message is a shared message as data: its key and the values of its
// placeholders ("name", value, ...), worded by String, once, where it is
// said (as apimachinery's field.Error is a value until its Error). A
// value may be a fmt.Stringer (a Message, a MsgPlace): it is worded with
// the text around it.
type Message struct {
	Key string
	KV  []any
}

// String is the message in words (Msg).
func (m Message) String() string { return Msg(m.Key, m.KV...) }

// HasMsg reports whether a shared message key exists.
func HasMsg(key string) bool {
	sharedOnce.Do(loadShared)
	_, ok := shared[key]
	return ok
}

// fill replaces {name} placeholders with the kv pairs' values and each
// particle pair ({이/가}, {을/를}, ...) with the form that fits the text
// before it (particle.go), in one pass over the template: a value is never
// read for placeholders or pairs. A time.Duration is spelled by Duration,
// so no caller can let Go's "1m5s" reach a reader.
func fill(t string, kv []any) string {
	out, _ := fillLeft(t, kv)
	return out
}

// fillLeft is fill, also returning the placeholders of t that kv gave no
// value for (left as written), in order.
func fillLeft(t string, kv []any) (string, []string) {
	if !strings.Contains(t, "{") {
		return t, nil
	}
	vals := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		v := fmt.Sprint(kv[i+1])
		if d, ok := kv[i+1].(time.Duration); ok {
			v = Duration(d)
		}
		vals[fmt.Sprint(kv[i])] = v
	}
	var b strings.Builder
	var left []string
	for {
		open := strings.IndexByte(t, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(t[open:], '}')
		if end < 0 {
			break
		}
		name := t[open+1 : open+end]
		b.WriteString(t[:open])
		if v, ok := vals[name]; ok {
			b.WriteString(v)
		} else if _, ok := particles[name]; ok {
			b.WriteString(Particle(b.String(), name))
		} else {
			if placeholderName().MatchString(name) {
				left = append(left, name)
			}
			// Not ours (JSON in a command, {{ROOT}}), or not filled: keep
			// the brace and look for placeholders inside it.
			b.WriteByte('{')
			t = t[open+1:]
			continue
		}
		t = t[open+end+1:]
	}
	b.WriteString(t)
	return b.String(), left
}

// placeholderName is what a placeholder's name looks like ({got},
// {got_type}); other braces (JSON, {{ROOT}}, a particle pair) are not
// placeholders.
var placeholderName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*$`) })

// placeholderRef finds the placeholders of a text.
var placeholderRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([a-z][a-z0-9_]*)\}`) })

// Placeholders are the {name} placeholders of a message text, in order,
// each once: the values whoever shows it must give (particle pairs are
// not placeholders: the filler resolves them).
func Placeholders(t string) []string {
	var out []string
	for _, m := range placeholderRef().FindAllStringSubmatch(t, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// Expand replaces the {{ROOT}} placeholder with the lab root in use, so the
// learner sees the real paths.
func Expand(md, root string) string {
	return strings.ReplaceAll(md, "{{ROOT}}", root)
}
