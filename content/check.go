package content

import (
	"maps"
	"reflect"
	"strings"
	"sync"
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
	// CheckKeySpan says where each is.
	Fields map[string]any `toml:"-"`
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
