// Package termtext makes text labmate did not write safe to draw on the
// learner's terminal. A lab's pages, hints and messages, what the
// learner's files hold, cluster objects, a script's output, class records
// and replayed traces come from people the learner may not know; any of
// them may carry an escape sequence that sets the window title, writes
// the clipboard (OSC 52) or clears the screen. Clean shows every control
// character but newline and tab as a visible picture (ESC as ␛, BEL as
// ␇), so such a sequence reaches the screen as the characters ␛]2;…␇ and
// does nothing, the way tmux escapes pane titles and git quotes paths.
package termtext

import (
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// Clean returns s with every control character shown, never sent: C0
// controls but newline and tab become their Unicode control pictures
// (U+2400 + code: ␛ ␇ ␍ …), DEL becomes ␡, and a C1 control (U+0080 to
// U+009F, the 8-bit forms of ESC sequences) becomes ␛ and its 7-bit
// form (U+009B, CSI, as ␛[; U+009D, OSC, as ␛]). A carriage return just
// before a newline is dropped (a CRLF line end); bytes that are not
// UTF-8 become '?'. Clean returns s itself when there is nothing to
// change, and Clean(Clean(s)) == Clean(s).
//
// Every ESC-introduced sequence (CSI, OSC, DCS, APC, PM, SOS) needs its
// introducer, ESC or a C1 code, to act, and ends with BEL or ST (ESC \ or
// U+009C): with those shown as pictures, what lies between is printable
// text and the whole sequence is visible for what it is.
func Clean(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteByte('?')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// a CRLF line end: the newline follows
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r <= 0x9f:
			b.WriteRune('␛')
			b.WriteRune(r - 0x40)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports whether s is valid UTF-8 with no control character but
// newline and tab: the common case, checked without allocating.
func clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r <= 0x9f) {
			return false
		}
		i += size
	}
	return true
}

// Deep returns a copy of v with Clean applied to every string in it:
// fields of structs (exported ones; the rest are copied as they are),
// elements of slices and arrays, map keys and values, what pointers point
// at. It never changes v, so a value other readers share (a report, a
// class) can pass it. Values behind interfaces, funcs and channels are
// kept as they are: they are not text to show (an fs.FS, an error). Deep
// is for values that cross into drawing from outside as a whole, so a
// string field added later is cleaned without anyone remembering to.
//
// The TUI passes every report through it, and almost every report is
// clean: then Deep only looks (no copy) and returns v itself, which is
// safe because neither Deep nor its callers change what they are given.
func Deep[T any](v T) T {
	if !dirty(reflect.ValueOf(&v).Elem(), nil) {
		return v
	}
	var out T
	d := deepCopier{seen: map[ptrKey]reflect.Value{}}
	reflect.ValueOf(&out).Elem().Set(d.copy(reflect.ValueOf(&v).Elem()))
	return out
}

type ptrKey struct {
	t reflect.Type
	p uintptr
}

// deepCopier copies a value for Deep; seen keeps one copy per pointer so
// shared and cyclic pointers stay shared and end.
type deepCopier struct {
	seen map[ptrKey]reflect.Value
}

func (d deepCopier) copy(v reflect.Value) reflect.Value {
	if !typeHoldsText(v.Type()) {
		return v
	}
	switch v.Kind() {
	case reflect.String:
		s := Clean(v.String())
		if s == v.String() {
			return v
		}
		n := reflect.New(v.Type()).Elem()
		n.SetString(s)
		return n
	case reflect.Struct:
		n := reflect.New(v.Type()).Elem()
		n.Set(v)
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n.Field(i).Set(d.copy(v.Field(i)))
			}
		}
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		k := ptrKey{v.Type(), v.Pointer()}
		if n, ok := d.seen[k]; ok {
			return n
		}
		n := reflect.New(v.Type().Elem())
		d.seen[k] = n
		n.Elem().Set(d.copy(v.Elem()))
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			n.Index(i).Set(d.copy(v.Index(i)))
		}
		return n
	case reflect.Array:
		n := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			n.Index(i).Set(d.copy(v.Index(i)))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			n.SetMapIndex(d.copy(it.Key()), d.copy(it.Value()))
		}
		return n
	}
	return v
}

// dirty reports whether v holds a string Clean would change, walking
// what Deep's copy walks; seen ends cycles (made when the first pointer
// is met).
func dirty(v reflect.Value, seen map[ptrKey]bool) bool {
	if !typeHoldsText(v.Type()) {
		return false
	}
	switch v.Kind() {
	case reflect.String:
		return !clean(v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && dirty(v.Field(i), seen) {
				return true
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			return false
		}
		if seen == nil {
			seen = map[ptrKey]bool{}
		}
		k := ptrKey{v.Type(), v.Pointer()}
		if seen[k] {
			return false
		}
		seen[k] = true
		return dirty(v.Elem(), seen)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if dirty(v.Index(i), seen) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if dirty(it.Key(), seen) || dirty(it.Value(), seen) {
				return true
			}
		}
	}
	return false
}

// textTypes caches typeHoldsText: Deep walks the same few types often.
var textTypes sync.Map // reflect.Type -> bool

func typeHoldsText(t reflect.Type) bool {
	if b, ok := textTypes.Load(t); ok {
		return b.(bool)
	}
	b := holdsText(t, 0)
	textTypes.Store(t, b)
	return b
}

// holdsText reports whether a value of type t can hold a string Deep
// cleans, so numbers, byte slices and times are copied whole. A type
// nested deeper than a value could sensibly be is taken to hold text.
func holdsText(t reflect.Type, depth int) bool {
	if depth > 16 {
		return true
	}
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsText(t.Elem(), depth+1)
	case reflect.Map:
		return holdsText(t.Key(), depth+1) || holdsText(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsText(f.Type, depth+1) {
				return true
			}
		}
	}
	return false
}
