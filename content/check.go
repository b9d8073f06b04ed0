package content

import (
	"bytes"
	"errors"
	"maps"
	"reflect"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// Check is one declarative check: the keys every check has, and Fields,
// the keys of its type. Content knows no check type: labkit decodes
// Fields for the check's type and says which keys it reads (the
// reference, generated from labkit, is in docs/AUTHORING.md). Text
// fields name message keys of the lab's messages*.toml.
type Check struct {
	ID    string   `toml:"id"`
	Type  string   `toml:"type"`
	Needs []string `toml:"needs"`

	Pass   string `toml:"pass"`
	Fail   string `toml:"fail"`
	Expect string `toml:"expect"`
	Hint   string `toml:"hint"`

	// Fields are the check's other keys as TOML decodes them (a
	// [[steps.checks.rules]] sub-table is a []any of map[string]any);
	// DecodeFields reads them into its type's struct, and Keys says
	// where each is.
	Fields map[string]any `toml:"-"`

	// At is where lab.toml declares the check (a zero Span when it is
	// written inline); Keys where it sets each of its keys, by their
	// path within the check ("path", "rules.expr": the first place for
	// a key set in several rules; "rules.1.expr": the second rule's).
	At   Span            `toml:"-"`
	Keys map[string]Span `toml:"-"`

	// Texts are the messages the check may name, resolved as the lab is
	// read, by key: each string value of the check, at any depth, that
	// the lab's messages or the shared ones define. A key a field names
	// that is not here has no text.
	Texts map[string]Template `toml:"-"`
}

// FieldsError is what DecodeFields found wrong with a check's own keys:
// Unknown are the keys (paths within the check) the type's struct does
// not have; Bad, when not "", says a value is of the wrong TOML type, at
// BadKey (a path within the check; nil when unknown).
type FieldsError struct {
	Unknown [][]string
	Bad     string
	BadKey  []string
}

func (e *FieldsError) Error() string {
	if e.Bad != "" {
		return e.Bad
	}
	var keys []string
	for _, k := range e.Unknown {
		keys = append(keys, strings.Join(k, "."))
	}
	return Msg("content.unknown_keys", "keys", strings.Join(keys, ", "))
}

// DecodeFields decodes the check's own keys (Fields) into fields, a
// pointer to its type's struct of them (TOML tags), strictly: the one
// place a check's keys become Go values, beside decodeLab, which reads
// the rest of lab.toml. The error is a *FieldsError.
func (c Check) DecodeFields(fields any) error {
	raw, err := toml.Marshal(c.Fields)
	if err == nil {
		dec := toml.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		err = dec.Decode(fields)
	}
	var strict *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &strict):
		fe := &FieldsError{}
		for _, e := range strict.Errors {
			fe.Unknown = append(fe.Unknown, e.Key())
		}
		return fe
	case errors.As(err, &de):
		return &FieldsError{Bad: Msg("content.bad_toml", "err", de.Error()), BadKey: de.Key()}
	default:
		return &FieldsError{Bad: Msg("content.bad_toml", "err", err)}
	}
}

// labFile is lab.toml as it is decoded strictly: the Lab, with each
// check a table, for the keys of a check's type are not content's to
// know. The common keys of the checks are decoded into checkHeads.
type labFile struct {
	Lab
	Steps []stepFile `toml:"steps"`
}

type stepFile struct {
	Step
	Checks []map[string]any `toml:"checks"`
}

// checkHeads are the common keys of every check, decoded from lab.toml
// itself so a wrong type is reported at its place.
type checkHeads struct {
	Steps []struct {
		Checks []Check `toml:"checks"`
	} `toml:"steps"`
}

// commonKeys are the TOML keys of Check itself.
var commonKeys = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[Check]()
	for i := range t.NumField() {
		if tag := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]; tag != "" && tag != "-" {
			m[tag] = true
		}
	}
	return m
})

// decodeLab decodes lab.toml into l: strictly, but for the keys of the
// checks' types, which go into Check.Fields.
func decodeLab(file string, raw []byte, l *Lab) error {
	lf := labFile{Lab: *l}
	if err := decodeTOML(file, raw, &lf, true); err != nil {
		return err
	}
	var heads checkHeads
	if err := decodeTOML(file, raw, &heads, false); err != nil {
		return err
	}
	*l = lf.Lab
	l.Steps = nil
	for i, sf := range lf.Steps {
		s := sf.Step
		s.Checks = nil
		for j, table := range sf.Checks {
			c := heads.Steps[i].Checks[j]
			c.Fields = maps.Clone(table)
			maps.DeleteFunc(c.Fields, func(k string, _ any) bool { return commonKeys()[k] })
			s.Checks = append(s.Checks, c)
		}
		l.Steps = append(l.Steps, s)
	}
	return nil
}

// resolveTexts gives each check the texts its values may name
// (Check.Texts), once the lab's messages are read: compiling a check
// reads them from the check.
func (l *Lab) resolveTexts() {
	for i := range l.Steps {
		for j := range l.Steps[i].Checks {
			c := &l.Steps[i].Checks[j]
			c.Texts = map[string]Template{}
			var name func(v any)
			name = func(v any) {
				switch v := v.(type) {
				case string:
					if t, ok := l.template(v); ok && v != "" {
						c.Texts[v] = t
					}
				case []any:
					for _, e := range v {
						name(e)
					}
				case []map[string]any:
					for _, e := range v {
						name(e)
					}
				case map[string]any:
					for _, e := range v {
						name(e)
					}
				}
			}
			for _, v := range []string{c.Pass, c.Fail, c.Expect, c.Hint} {
				name(v)
			}
			name(c.Fields)
		}
	}
}
