package checks

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// criPlugin is the CRI plugin's name in a containerd 1.x (config version 2)
// file; runtimesPath is the table the runtimes live under.
const criPlugin = "io.containerd.grpc.v1.cri"

var runtimesPath = []string{"plugins", criPlugin, "containerd", "runtimes"}

// tomlDoc is one of the learner's TOML files as parsed.
type tomlDoc struct {
	rel   string
	text  string
	tree  map[string]any
	lines map[string]int // keyPath -> line where the key or table is first written
}

// tomlFile is a lab TOML file read and parsed, with the two results that
// say how far that got. doc is nil unless both passed.
type tomlFile struct {
	doc   *tomlDoc
	file  Result
	parse Result
}

// openTOML reads and parses rel; the checks are named prefix.file and
// prefix.toml.
func openTOML(in Input, prefix, rel string) tomlFile {
	fileID, parseID := prefix+".file", prefix+".toml"
	text, bad := readText(in, fileID, rel)
	if bad != nil {
		return tomlFile{file: *bad, parse: waiting(parseID, msg("files.wait.file", "what", "TOML"))}
	}
	tf := tomlFile{file: passed(fileID, msg("files.file.ok", "path", shown(in, rel), "size", len(text)))}
	var tree map[string]any
	if err := toml.Unmarshal([]byte(text), &tree); err != nil {
		tf.parse = tomlError(in, parseID, rel, text, err)
		return tf
	}
	if tree == nil {
		tree = map[string]any{}
	}
	tf.parse = passed(parseID, msg("files.toml.ok", "path", shown(in, rel)))
	tf.doc = &tomlDoc{rel: rel, text: text, tree: tree, lines: keyLines([]byte(text))}
	return tf
}

// waitingOnParse is what a key check says while its file cannot be read.
func waitingOnParse(s keySpec) Result {
	return waiting(s.id, msg("files.wait.toml", "what", shortKey(s.path)))
}

// shortKey names a key without the plugin prefix every message repeats.
func shortKey(p []string) string {
	if len(p) > 3 && slices.Equal(p[:3], runtimesPath[:3]) {
		return keyPath(p[3:])
	}
	return keyPath(p)
}

var (
	reBoolCase = regexp.MustCompile(`=\s*(True|False|TRUE|FALSE|yes|no|Yes|No)\s*(#.*)?$`)
	// A value that starts like a word or a path: a string without quotes
	// (true, false, inf and nan are the only bare words TOML has).
	reBareString = regexp.MustCompile(`=\s*(?:[/.]|[A-Za-z][\w.-]*)`)
	reKeyword    = regexp.MustCompile(`=\s*(?:true|false|[+-]?inf|[+-]?nan)\s*(?:#.*)?$`)
)

// tomlError turns a parse error into a failed result naming line, column,
// the parser's message and the offending line.
func tomlError(in Input, id, rel, text string, err error) Result {
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return failed(id, msg("files.toml.error", "path", shown(in, rel), "err", err), msg("files.expect.toml"), err.Error(), rel)
	}
	line, col := de.Position()
	excerpt := lineAt(text, line)
	var hint string
	emsg := de.Error()
	switch {
	case strings.HasPrefix(text, "\uFEFF"):
		hint = msg("files.toml.hint.bom")
	case strings.Contains(emsg, "already exists") || strings.Contains(emsg, "already defined"):
		hint = msg("files.toml.hint.duplicate")
	case reBoolCase.MatchString(excerpt):
		hint = msg("files.toml.hint.bool_case")
	case reBareString.MatchString(excerpt) && !reKeyword.MatchString(excerpt):
		hint = msg("files.toml.hint.bare_string")
	case strings.Contains(emsg, "expected ']'") || strings.Contains(emsg, "incomplete") ||
		strings.Contains(emsg, "new lines") || strings.Contains(emsg, "unterminated"):
		hint = msg("files.toml.hint.unclosed")
	}
	m := msg("files.toml.parse_error", "path", shown(in, rel), "line", line, "col", col, "err", emsg, "excerpt", excerpt) + hint
	return failed(id, m, msg("files.expect.toml"), emsg, fmt.Sprintf("%s:%d:%d", rel, line, col))
}

// maxKeyDepth bounds the key paths keyLines records: the lab's deepest
// is eight segments.
const maxKeyDepth = 32

// keyLines maps every key and table path in a (valid) document to the
// line it is first written on, for messages.
func keyLines(data []byte) (lines map[string]int) {
	lines = map[string]int{}
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
	lineOf := func(off uint32) int {
		return sort.Search(len(starts), func(i int) bool { return starts[i] > int(off) })
	}
	record := func(path []string, line int) {
		// Messages name paths a few segments deep; recording every
		// prefix of a key thousands of parts deep would cost the square
		// of its depth in time and memory.
		for i := 1; i <= min(len(path), maxKeyDepth); i++ {
			k := keyPath(path[:i])
			if _, ok := lines[k]; !ok {
				lines[k] = line
			}
		}
	}
	var keyval func(prefix []string, n *unstable.Node)
	keyval = func(prefix []string, n *unstable.Node) {
		path, line := append(append([]string(nil), prefix...), keyParts(n)...), 0
		if it := n.Key(); it.Next() {
			line = lineOf(it.Node().Raw.Offset)
		}
		record(path, line)
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
				record(table, lineOf(it.Node().Raw.Offset))
			}
		case unstable.KeyValue:
			keyval(table, e)
		}
	}
	return lines
}

func keyParts(n *unstable.Node) []string {
	var parts []string
	for it := n.Key(); it.Next(); {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

var reBareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// keyPath writes a key path the way TOML does: bare segments as they are,
// the rest quoted (plugins."io.containerd.grpc.v1.cri".containerd).
func keyPath(segs []string) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		if reBareKey.MatchString(s) {
			parts[i] = s
		} else {
			parts[i] = strconv.Quote(s)
		}
	}
	return strings.Join(parts, ".")
}

// get returns the value at a key path.
func (d *tomlDoc) get(segs []string) (any, bool) {
	var cur any = d.tree
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

// table returns the table at a key path, or nil.
func (d *tomlDoc) table(segs []string) map[string]any {
	v, _ := d.get(segs)
	m, _ := v.(map[string]any)
	return m
}

func (d *tomlDoc) line(segs []string) int { return d.lines[keyPath(segs)] }

// walk calls fn for every key path in the document, tables before their
// contents, keys in sorted order.
func (d *tomlDoc) walk(fn func(path []string, v any)) {
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
	rec(nil, d.tree)
}

// keySpec is one value the learner must write at a fixed key path.
type keySpec struct {
	id   string
	path []string
	// anchor is the index in path of the segment naming what the key
	// belongs to (a runtime's name), used to find the key when it was
	// put elsewhere; -1 when the key name alone identifies it.
	anchor int
	want   any // string, bool or int64
	// hint, when set, adds advice for a wrong value of the right type.
	hint func(got any) string
}

// check judges the value at s.path.
func (d *tomlDoc) check(in Input, s keySpec) Result {
	key := keyPath(s.path)
	v, ok := d.get(s.path)
	if !ok {
		return d.missing(in, s)
	}
	line := d.lines[key]
	expected := key + " = " + tomlValue(s.want)
	got := tomlValue(v)
	at := where(d.rel, line)
	if v == s.want {
		return passed(s.id, msg("files.key.ok", "key", key, "value", got, "line", line))
	}
	switch vs := v.(type) {
	case string:
		if _, isBool := s.want.(bool); isBool && strings.EqualFold(strings.TrimSpace(vs), tomlValue(s.want)) {
			return failed(s.id, msg("files.key.bool_as_string", "key", key, "got", got, "want", tomlValue(s.want), "line", line), expected, got, at)
		}
		if _, isInt := s.want.(int64); isInt && strings.TrimSpace(vs) == tomlValue(s.want) {
			return failed(s.id, msg("files.key.int_as_string", "key", key, "got", got, "want", tomlValue(s.want), "line", line), expected, got, at)
		}
	}
	if typeName(v) != typeName(s.want) {
		return failed(s.id, msg("files.key.wrong_type", "key", key, "got", got, "got_type", typeName(v),
			"want", tomlValue(s.want), "want_type", typeName(s.want), "line", line), expected, got, at)
	}
	var hint string
	if s.hint != nil {
		hint = s.hint(v)
	}
	return failed(s.id, msg("files.key.wrong_value", "key", key, "got", got, "want", tomlValue(s.want), "line", line)+hint, expected, got, at)
}

// missing explains a key that is not at its path: where the learner put
// it instead, or how much of the path exists.
func (d *tomlDoc) missing(in Input, s keySpec) Result {
	key := keyPath(s.path)
	expected := key + " = " + tomlValue(s.want)
	if found, tableOnly := d.misplaced(s.path, s.anchor); found != nil {
		fp, line := keyPath(found), d.line(found)
		hint := pathHints(found, s.path)
		if tableOnly {
			want := keyPath(s.path[:s.anchor+1])
			return failed(s.id, msg("files.key.table_misplaced", "table", s.path[s.anchor], "found", fp, "line", line, "want", want, "key", key)+hint,
				expected, fp, where(d.rel, line))
		}
		return failed(s.id, msg("files.key.misplaced", "leaf", s.path[len(s.path)-1], "found", fp, "line", line, "key", key)+hint,
			expected, fp, where(d.rel, line))
	}
	n := 0
	var cur any = d.tree
	for _, seg := range s.path {
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
	absent := msg("files.seen.absent")
	switch {
	case n == 0:
		return failed(s.id, msg("files.key.missing", "key", key, "top", keyPath(s.path[:1])), expected, absent, d.rel)
	case n < len(s.path):
		if _, isTable := cur.(map[string]any); !isTable {
			have := s.path[:n]
			return failed(s.id, msg("files.key.not_table", "key", key, "have", keyPath(have), "got", tomlValue(cur), "got_type", typeName(cur)),
				expected, tomlValue(cur), where(d.rel, d.line(have)))
		}
		have := s.path[:n]
		return failed(s.id, msg("files.key.missing_under", "key", key, "have", keyPath(have), "line", d.line(have), "rest", keyPath(s.path[n:])),
			expected, absent, where(d.rel, d.line(have)))
	}
	return failed(s.id, msg("files.key.missing", "key", key, "top", keyPath(s.path[:1])), expected, absent, d.rel)
}

// misplaced finds where the learner put what belongs at want: a key with
// the same name (ignoring case) elsewhere, passing through the anchor
// segment when there is one; failing that, the anchor's table elsewhere
// (tableOnly). The first one written in the file wins.
func (d *tomlDoc) misplaced(want []string, anchor int) (found []string, tableOnly bool) {
	leaf := want[len(want)-1]
	var keys, tables [][]string
	d.walk(func(p []string, v any) {
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
	if _, ok := d.get(want[:anchor+1]); ok {
		return nil, false // the table is in place; only the key is missing
	}
	if first := d.earliest(tables); first != nil {
		return first, true
	}
	return nil, false
}

func (d *tomlDoc) earliest(paths [][]string) []string {
	var best []string
	for _, p := range paths {
		if best == nil || d.line(p) < d.line(best) {
			best = p
		}
	}
	return best
}

// pathHints says, in the lab's terms, how a key path the learner wrote
// differs from the one containerd reads.
func pathHints(found, want []string) string {
	var b strings.Builder
	plugin := -1
	if i := indexRun(found, "io", "containerd", "grpc", "v1", "cri"); i >= 0 {
		b.WriteString(msg("files.hint.unquoted_plugin"))
		plugin = i + 4
	}
	if len(found) > 1 && found[0] == "plugins" && found[1] == "cri" {
		b.WriteString(msg("files.hint.v1_plugin_name"))
		plugin = 1
	}
	if slices.Contains(found, "io.containerd.cri.v1.runtime") {
		b.WriteString(msg("files.hint.v3_plugin_name"))
	}
	if i := slices.Index(found, criPlugin); i >= 0 {
		plugin = i
	}
	if plugin >= 0 && plugin+1 < len(found) && found[plugin+1] != "containerd" && slices.Contains(want, "containerd") {
		b.WriteString(msg("files.hint.missing_containerd"))
	}
	if slices.Contains(want, "options") && !slices.Contains(found, "options") {
		b.WriteString(msg("files.hint.missing_options"))
	}
	if fl, wl := found[len(found)-1], want[len(want)-1]; fl != wl {
		b.WriteString(msg("files.hint.key_case", "found", fl, "want", wl))
	}
	if n := len(want) - 1; len(found) > len(want) && slices.Equal(found[:n], want[:n]) {
		b.WriteString(msg("files.hint.under_header", "table", keyPath(found[:len(found)-1])))
	}
	return b.String()
}

// indexRun returns where the segments run start in p, or -1.
func indexRun(p []string, run ...string) int {
	for i := 0; i+len(run) <= len(p); i++ {
		if slices.Equal(p[i:i+len(run)], run) {
			return i
		}
	}
	return -1
}

// tomlValue writes a parsed value back the way it would look in TOML.
func tomlValue(v any) string {
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
			parts[i] = tomlValue(x)
		}
		return clip("["+strings.Join(parts, ", ")+"]", 120)
	case map[string]any:
		return msg("files.value.table", "n", len(t))
	case nil:
		return msg("files.seen.absent")
	}
	return clip(fmt.Sprint(v), 80)
}

// typeName is the Korean name of a TOML value's type.
func typeName(v any) string {
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

// runtimeNames returns the runtime tables defined under runtimesPath,
// sorted, and whether the runtimes table exists at all.
func (d *tomlDoc) runtimeNames() ([]string, bool) {
	v, ok := d.get(runtimesPath)
	if !ok {
		return nil, false
	}
	m, isTable := v.(map[string]any)
	if !isTable {
		return nil, false
	}
	var names []string
	for k, sub := range m {
		if _, ok := sub.(map[string]any); ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names, true
}
