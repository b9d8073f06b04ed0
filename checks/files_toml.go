package checks

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// TOMLDoc is one of the learner's TOML files as parsed.
type TOMLDoc struct {
	Rel   string
	Text  string
	Tree  map[string]any
	Lines map[string]int // keyPath -> line where the key or table is first written
	Cols  map[string]int // keyPath -> the column of its key there
}

// TOMLFile is a lab TOML file read and parsed, with the two results that
// say how far that got. doc is nil unless both passed.
type TOMLFile struct {
	Doc   *TOMLDoc
	File  Result
	Parse Result
}

// OpenTOML reads and parses rel; the checks are named prefix.file and
// prefix.toml.
func OpenTOML(in Input, prefix, rel string) TOMLFile {
	fileID, parseID := prefix+".file", prefix+".toml"
	text, bad := ReadText(in, fileID, rel)
	if bad != nil {
		return TOMLFile{File: *bad, Parse: Wait(parseID, in.Msg("files.wait.file", "what", "TOML"))}
	}
	tf := TOMLFile{File: Pass(fileID, in.Msg("files.file.ok", "path", Shown(in, rel), "size", len(text)))}
	var tree map[string]any
	if err := toml.Unmarshal([]byte(text), &tree); err != nil {
		tf.Parse = tomlError(in, parseID, rel, text, err)
		return tf
	}
	if tree == nil {
		tree = map[string]any{}
	}
	tf.Parse = Pass(parseID, in.Msg("files.toml.ok", "path", Shown(in, rel)))
	lines, cols := keyLines([]byte(text))
	tf.Doc = &TOMLDoc{Rel: rel, Text: text, Tree: tree, Lines: lines, Cols: cols}
	return tf
}

var (
	reBoolCase = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`=\s*(True|False|TRUE|FALSE|yes|no|Yes|No)\s*(#.*)?$`)
	})
	// A value that starts like a word or a path: a string without quotes
	// (true, false, inf and nan are the only bare words TOML has).
	reBareString = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`=\s*(?:[/.]|[A-Za-z][\w.-]*)`) })
	reKeyword    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`=\s*(?:true|false|[+-]?inf|[+-]?nan)\s*(?:#.*)?$`) })
)

// tomlError turns a parse error into a failed result naming line and
// column, what is wrong in the learner's words and the offending line;
// the parser's own English is what labmate observed.
func tomlError(in Input, id, rel, text string, err error) Result {
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return Fail(id, in.Msg("files.toml.error", "path", Shown(in, rel)), in.Msg("files.expect.toml"), err.Error(), rel)
	}
	line, col := de.Position()
	excerpt := LineAt(text, line)
	emsg := de.Error()
	m := in.Msg("files.toml.parse_error", "path", Shown(in, rel), "line", line, "col", col,
		"why", strings.TrimSpace(tomlWhy(in, text, excerpt, emsg)), "excerpt", excerpt)
	return Fail(id, m, in.Msg("files.expect.toml"), emsg, fmt.Sprintf("%s:%d:%d", rel, line, col))
}

// tomlWhy says what is wrong at a TOML parse error. go-toml's DecodeError
// carries the position but its problem only as English text, so the
// offending line is read first and the parser's phrases after.
func tomlWhy(in Input, text, excerpt, emsg string) string {
	switch {
	case strings.HasPrefix(text, "\uFEFF"):
		return in.Msg("files.toml.hint.bom")
	case strings.Contains(emsg, "already exists") || strings.Contains(emsg, "already defined"):
		return in.Msg("files.toml.hint.duplicate")
	case reBoolCase().MatchString(excerpt):
		return in.Msg("files.toml.hint.bool_case")
	case reBareString().MatchString(excerpt) && !reKeyword().MatchString(excerpt):
		return in.Msg("files.toml.hint.bare_string")
	case strings.Contains(emsg, "expected ']'") || strings.Contains(emsg, "incomplete") ||
		strings.Contains(emsg, "new lines") || strings.Contains(emsg, "unterminated"):
		return in.Msg("files.toml.hint.unclosed")
	case strings.Contains(emsg, "expected character ="):
		return in.Msg("files.toml.hint.no_equals")
	}
	return in.Msg("files.toml.hint.other")
}

// maxKeyDepth bounds the key paths keyLines records: the lab's deepest
// is eight segments.
const maxKeyDepth = 32

// keyLines maps every key and table path in a (valid) document to the
// line it is first written on, and the column of its key there, for
// messages.
func keyLines(data []byte) (lines, cols map[string]int) {
	lines, cols = map[string]int{}, map[string]int{}
	defer func() {
		// The unstable parser is only used for line numbers; never let
		// it take a check down.
		_ = recover()
	}()
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	type pos struct{ line, col int }
	posOf := func(off uint32) pos {
		line := sort.Search(len(starts), func(i int) bool { return starts[i] > int(off) })
		return pos{line, int(off) - starts[line-1] + 1}
	}
	record := func(path []string, at pos) {
		// Messages name paths a few segments deep; recording every
		// prefix of a key thousands of parts deep would cost the square
		// of its depth in time and memory.
		for i := 1; i <= min(len(path), maxKeyDepth); i++ {
			k := KeyPath(path[:i])
			if _, ok := lines[k]; !ok {
				lines[k], cols[k] = at.line, at.col
			}
		}
	}
	var keyval func(prefix []string, n *unstable.Node)
	keyval = func(prefix []string, n *unstable.Node) {
		path, at := append(append([]string(nil), prefix...), keyParts(n)...), pos{}
		if it := n.Key(); it.Next() {
			at = posOf(it.Node().Raw.Offset)
		}
		record(path, at)
		if v := n.Value(); v.Kind == unstable.InlineTable {
			for it := v.Children(); it.Next(); {
				keyval(path, it.Node())
			}
		}
	}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e)
			if it := e.Key(); it.Next() {
				record(table, posOf(it.Node().Raw.Offset))
			}
		case unstable.KeyValue:
			keyval(table, e)
		}
	}
	return lines, cols
}

func keyParts(n *unstable.Node) []string {
	var parts []string
	for it := n.Key(); it.Next(); {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

var reBareKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// KeyPath writes a key path the way TOML does: bare segments as they are,
// the rest quoted (plugins."io.containerd.grpc.v1.cri".containerd).
func KeyPath(segs []string) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		if reBareKey().MatchString(s) {
			parts[i] = s
		} else {
			parts[i] = strconv.Quote(s)
		}
	}
	return strings.Join(parts, ".")
}

// Get returns the value at a key path.
func (d *TOMLDoc) Get(segs []string) (any, bool) {
	var cur any = d.Tree
	for _, s := range segs {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[s]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Table returns the table at a key path, or nil.
func (d *TOMLDoc) Table(segs []string) map[string]any {
	v, _ := d.Get(segs)
	m, _ := v.(map[string]any)
	return m
}

func (d *TOMLDoc) Line(segs []string) int { return d.Lines[KeyPath(segs)] }

// At is where the key at segs is written, file:line:column as YAML's
// places are (the file alone when the key is not in it).
func (d *TOMLDoc) At(segs []string) string {
	k := KeyPath(segs)
	line, col := d.Lines[k], d.Cols[k]
	if line <= 0 || col <= 0 {
		return Where(d.Rel, line)
	}
	return fmt.Sprintf("%s:%d:%d", d.Rel, line, col)
}

// Walk calls fn for every key path in the document, tables before their
// contents, keys in sorted order.
func (d *TOMLDoc) Walk(fn func(path []string, v any)) {
	var rec func(prefix []string, m map[string]any)
	rec = func(prefix []string, m map[string]any) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := append(append([]string(nil), prefix...), k)
			fn(p, m[k])
			if sub, ok := m[k].(map[string]any); ok {
				rec(p, sub)
			}
		}
	}
	rec(nil, d.Tree)
}

// KeySpec is one value the learner must write at a fixed key path.
type KeySpec struct {
	ID   string
	Path []string
	// Anchor is the index in path of the segment naming what the key
	// belongs to (a runtime's name), used to find the key when it was
	// put elsewhere; -1 when the key name alone identifies it.
	Anchor int
	Want   any // string, bool or int64
	// Hint, when set, adds advice for a wrong value of the right type.
	Hint func(got any) string
	// PathHint, when set, says in the lab's terms how a key path the
	// learner wrote (found) differs from the one wanted.
	PathHint func(found, want []string) string
}

// Check judges the value at s.path.
func (d *TOMLDoc) Check(in Input, s KeySpec) Result {
	key := KeyPath(s.Path)
	v, ok := d.Get(s.Path)
	if !ok {
		return d.Missing(in, s)
	}
	return s.Judge(in, key, v, d.Lines[key], d.At(s.Path))
}

// Judge compares a value read at key (on line, at where) with s.Want:
// the TOML check's words for a wrong type, a quoted boolean or integer,
// and a wrong value. Formats other than TOML judge through it too, with
// their values typed as TOML's (string, bool, int64, float64).
func (s KeySpec) Judge(in Input, key string, v any, line int, at string) Result {
	expected := key + " = " + TOMLValue(in.Msg, s.Want)
	got := TOMLValue(in.Msg, v)
	if v == s.Want {
		return Pass(s.ID, in.Msg("files.key.ok", "key", key, "value", got, "line", line))
	}
	switch vs := v.(type) {
	case string:
		if _, isBool := s.Want.(bool); isBool && strings.EqualFold(strings.TrimSpace(vs), TOMLValue(in.Msg, s.Want)) {
			return Fail(s.ID, in.Msg("files.key.bool_as_string", "key", key, "got", got, "want", TOMLValue(in.Msg, s.Want), "line", line), expected, got, at)
		}
		if _, isInt := s.Want.(int64); isInt && strings.TrimSpace(vs) == TOMLValue(in.Msg, s.Want) {
			return Fail(s.ID, in.Msg("files.key.int_as_string", "key", key, "got", got, "want", TOMLValue(in.Msg, s.Want), "line", line), expected, got, at)
		}
	}
	if TypeName(in.Msg, v) != TypeName(in.Msg, s.Want) {
		return Fail(s.ID, in.Msg("files.key.wrong_type", "key", key, "got", got, "got_type", TypeName(in.Msg, v),
			"want", TOMLValue(in.Msg, s.Want), "want_type", TypeName(in.Msg, s.Want), "line", line), expected, got, at)
	}
	var hint string
	if s.Hint != nil {
		hint = s.Hint(v)
	}
	return Fail(s.ID, in.Msg("files.key.wrong_value", "key", key, "got", got, "want", TOMLValue(in.Msg, s.Want), "line", line)+hint, expected, got, at)
}

// Missing explains a key that is not at its path: where the learner put
// it instead, or how much of the path exists.
func (d *TOMLDoc) Missing(in Input, s KeySpec) Result {
	key := KeyPath(s.Path)
	expected := key + " = " + TOMLValue(in.Msg, s.Want)
	if found, tableOnly := d.misplaced(s.Path, s.Anchor); found != nil {
		fp, line := KeyPath(found), d.Line(found)
		hint := ""
		if s.PathHint != nil {
			hint = s.PathHint(found, s.Path)
		}
		if tableOnly {
			want := KeyPath(s.Path[:s.Anchor+1])
			return Fail(s.ID, in.Msg("files.key.table_misplaced", "table", s.Path[s.Anchor], "found", fp, "line", line, "want", want, "key", key)+hint,
				expected, fp, d.At(found))
		}
		return Fail(s.ID, in.Msg("files.key.misplaced", "leaf", s.Path[len(s.Path)-1], "found", fp, "line", line, "key", key)+hint,
			expected, fp, d.At(found))
	}
	n := 0
	var cur any = d.Tree
	for _, seg := range s.Path {
		m, isTable := cur.(map[string]any)
		if !isTable {
			break
		}
		next, ok := m[seg]
		if !ok {
			break
		}
		cur = next
		n++
	}
	absent := in.Msg("files.seen.absent")
	switch {
	case n == 0:
		return Fail(s.ID, in.Msg("files.key.missing", "key", key, "top", KeyPath(s.Path[:1])), expected, absent, d.Rel)
	case n < len(s.Path):
		if _, isTable := cur.(map[string]any); !isTable {
			have := s.Path[:n]
			return Fail(s.ID, in.Msg("files.key.not_table", "key", key, "have", KeyPath(have), "got", TOMLValue(in.Msg, cur), "got_type", TypeName(in.Msg, cur)),
				expected, TOMLValue(in.Msg, cur), d.At(have))
		}
		have := s.Path[:n]
		return Fail(s.ID, in.Msg("files.key.missing_under", "key", key, "have", KeyPath(have), "line", d.Line(have), "rest", KeyPath(s.Path[n:])),
			expected, absent, d.At(have))
	}
	return Fail(s.ID, in.Msg("files.key.missing", "key", key, "top", KeyPath(s.Path[:1])), expected, absent, d.Rel)
}

// misplaced finds where the learner put what belongs at want: a key with
// the same name (ignoring case) elsewhere, passing through the anchor
// segment when there is one; failing that, the anchor's table elsewhere
// (tableOnly). The first one written in the file wins.
func (d *TOMLDoc) misplaced(want []string, anchor int) (found []string, tableOnly bool) {
	leaf := want[len(want)-1]
	var keys, tables [][]string
	d.Walk(func(p []string, v any) {
		if slices.Equal(p, want) {
			return
		}
		if strings.EqualFold(p[len(p)-1], leaf) && (anchor < 0 || slices.Contains(p[:len(p)-1], want[anchor])) {
			keys = append(keys, p)
		}
		if _, isTable := v.(map[string]any); isTable && anchor >= 0 && p[len(p)-1] == want[anchor] && !slices.Equal(p, want[:anchor+1]) {
			tables = append(tables, p)
		}
	})
	if first := d.earliest(keys); first != nil {
		return first, false
	}
	if anchor < 0 {
		return nil, false
	}
	if _, ok := d.Get(want[:anchor+1]); ok {
		return nil, false // the table is in place; only the key is missing
	}
	if first := d.earliest(tables); first != nil {
		return first, true
	}
	return nil, false
}

func (d *TOMLDoc) earliest(paths [][]string) []string {
	var best []string
	for _, p := range paths {
		if best == nil || d.Line(p) < d.Line(best) {
			best = p
		}
	}
	return best
}

// IndexRun returns where the segments run start in p, or -1.
func IndexRun(p []string, run ...string) int {
	for i := 0; i+len(run) <= len(p); i++ {
		if slices.Equal(p[i:i+len(run)], run) {
			return i
		}
	}
	return -1
}

// TOMLValue writes a parsed value back the way it would look in TOML (a
// table and an absent value in the lab's words, msg).
func TOMLValue(msg Lookup, v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		s := strconv.FormatFloat(t, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = TOMLValue(msg, x)
		}
		return Clip("["+strings.Join(parts, ", ")+"]", 120)
	case map[string]any:
		return msg("files.value.table", "n", len(t))
	case nil:
		return msg("files.seen.absent")
	}
	return Clip(fmt.Sprint(v), 80)
}

// TypeName is the Korean name of a TOML value's type, in the lab's words
// (msg).
func TypeName(msg Lookup, v any) string {
	switch v.(type) {
	case string:
		return msg("files.type.string")
	case bool:
		return msg("files.type.bool")
	case int64:
		return msg("files.type.integer")
	case float64:
		return msg("files.type.float")
	case []any:
		return msg("files.type.array")
	case map[string]any:
		return msg("files.type.table")
	case time.Time, toml.LocalDate, toml.LocalTime, toml.LocalDateTime:
		return msg("files.type.datetime")
	}
	return fmt.Sprintf("%T", v)
}
