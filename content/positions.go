package content

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// offsetSpans returns the function that turns a byte offset of raw into
// its 1-based line and column.
func offsetSpans(raw []byte) func(off uint32) Span {
	starts := []int{0}
	for i, c := range raw {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off uint32) Span {
		line := sort.Search(len(starts), func(i int) bool { return starts[i] > int(off) })
		return Span{Line: line, Col: int(off) - starts[line-1] + 1}
	}
}

// keyPositions finds, with the TOML parser, where a valid document sets
// each key, by its path: names joined by dots, with the index (from 0) of
// each element of an array of tables and of each inline table in an
// array ("steps.0.wrong.1.check", "steps.0.solve.edit.1.old",
// "nginx.port.hint"). A table header is the position of its table
// ("steps.0"); a key set in several places keeps the first. Positions
// only make messages better: a document the parser cannot read has none.
func keyPositions(raw []byte) (at map[string]Span) {
	at = map[string]Span{}
	defer func() {
		// Never let the parser's unstable API take a lab down.
		if recover() != nil {
			at = map[string]Span{}
		}
	}()
	pos := offsetSpans(raw)
	kp := keyPlaces{at: at, arrays: map[string]int{}, pos: pos}
	var p unstable.Parser
	p.Reset(raw)
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = kp.header(e, e.Kind == unstable.ArrayTable)
		case unstable.KeyValue:
			kp.keyValue(table, e)
		}
	}
	return at
}

// keyPlaces collects keyPositions' answer.
type keyPlaces struct {
	at     map[string]Span
	arrays map[string]int // an array of tables (its path) -> its last element
	pos    func(uint32) Span
}

func (kp keyPlaces) set(path string, s Span) {
	if _, ok := kp.at[path]; !ok {
		kp.at[path] = s
	}
}

// header resolves a [table] or [[array]] header to its path, counting
// the elements of arrays of tables.
func (kp keyPlaces) header(e *unstable.Node, array bool) string {
	var parts []string
	var first Span
	for it := e.Key(); it.Next(); {
		if len(parts) == 0 {
			first = kp.pos(it.Node().Raw.Offset)
		}
		parts = append(parts, string(it.Node().Data))
	}
	cur := ""
	for i, part := range parts {
		cur = joinKey(cur, part)
		n, known := kp.arrays[cur]
		switch {
		case array && i == len(parts)-1:
			if !known {
				n = -1
			}
			n++
			kp.arrays[cur] = n
			cur += "." + strconv.Itoa(n)
		case known:
			cur += "." + strconv.Itoa(n)
		}
	}
	kp.set(cur, first)
	return cur
}

// keyValue records a key = value of table, and the keys of the inline
// tables in its value.
func (kp keyPlaces) keyValue(table string, e *unstable.Node) {
	path := table
	for it := e.Key(); it.Next(); {
		path = joinKey(path, string(it.Node().Data))
		kp.set(path, kp.pos(it.Node().Raw.Offset))
	}
	kp.value(path, e.Value())
}

func (kp keyPlaces) value(path string, v *unstable.Node) {
	switch v.Kind {
	case unstable.InlineTable:
		for it := v.Children(); it.Next(); {
			kp.keyValue(path, it.Node())
		}
	case unstable.Array:
		i := 0
		for it := v.Children(); it.Next(); i++ {
			if c := it.Node(); c.Kind == unstable.InlineTable {
				elem := path + "." + strconv.Itoa(i)
				if c.Raw.Length > 0 {
					kp.set(elem, kp.pos(c.Raw.Offset))
				}
				kp.value(elem, c)
			}
		}
	}
}

func joinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// MsgPlace is where a text a lab may show is written: one of the lab's
// messages*.toml (File, relative to the lab's directory, and the key's
// position there) or, File "", the shared text.
type MsgPlace struct {
	File string
	At   Span
}

// String words the place for an author: "messages.toml:3:1", or the
// shared text.
func (p MsgPlace) String() string {
	if p.File == "" {
		return Msg("content.shared_text")
	}
	var b strings.Builder
	b.WriteString(p.File)
	if p.At.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.At.Line))
		if p.At.Col > 0 {
			b.WriteString(":" + strconv.Itoa(p.At.Col))
		}
	}
	return b.String()
}

// MsgAt is where the lab's own text of key is written: its
// messages*.toml (relative to the lab's directory) and the key's position
// there; ok is false for a key the lab does not define.
func (l *Lab) MsgAt(key string) (file string, at Span, ok bool) {
	if l == nil {
		return "", Span{}, false
	}
	p, ok := l.msgAt[key]
	return p.File, p.At, ok
}

// MsgWhere words where the text of key is, for an author: "messages.toml:3:1",
// or the shared text when the lab does not define it.
func (l *Lab) MsgWhere(key string) string {
	file, at, _ := l.MsgAt(key)
	return MsgPlace{File: file, At: at}.String()
}

// Template is a text a lab may show as written, its placeholders
// unfilled: the lab's own, else the shared one, with where it is.
type Template struct {
	Text string
	// Placeholders are its placeholders (Placeholders).
	Placeholders []string
	Place        MsgPlace
}

// MsgTemplate is the text of key as written, placeholders unfilled: the
// lab's own, else the shared one.
func (l *Lab) MsgTemplate(key string) (string, bool) {
	t, ok := l.template(key)
	return t.Text, ok
}

// template resolves key: the lab's own text, else the shared one.
func (l *Lab) template(key string) (Template, bool) {
	if l != nil {
		if t, ok := l.msgs[key]; ok {
			return Template{Text: t, Placeholders: Placeholders(t), Place: l.msgAt[key]}, true
		}
	}
	sharedOnce.Do(loadShared)
	t, ok := shared[key]
	if !ok {
		return Template{}, false
	}
	return Template{Text: t, Placeholders: Placeholders(t)}, true
}

// VerifyAt is where verify.toml sets the key at path, written as
// keyPositions writes paths ("steps.0.id", "steps.1.wrong.0.check"; each
// index from 0): zero when unknown.
func (l *Lab) VerifyAt(path string) Span {
	if l == nil {
		return Span{}
	}
	return l.verifyAt[path]
}
