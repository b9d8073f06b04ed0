package labkit

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/labhub/labmate/content"
)

// What each check type is for and which fields it reads is documented
// by the type itself (checkType.Kind); together they are the one source
// of both the validation of a lab's checks and the reference in
// docs/AUTHORING.md (Reference renders them; a test fails when the two
// drift).

// Field documents one field of a declarative check.
type Field struct {
	Name     string // its TOML key
	Required bool
	Doc      string
}

// Kind documents one type of declarative check. Texts are the messages
// its checks may name (besides `hint`, every check's), with the
// placeholders it fills in each: a message with another placeholder, or
// in a field the type does not show, is an authoring error.
type Kind struct {
	Type   string
	Doc    string
	Fields []Field
	Texts  []Text
}

// Text is a message a check names by key in Field: the placeholders
// labmate fills in its text (the lab's own, or a shared one). Any other
// placeholder would reach the learner as written, `{gto}`.
type Text struct {
	Field        string
	Placeholders []string
}

// commonTexts are the messages of every check.
var commonTexts = []Text{{"hint", nil}}

// textOf is the Text for field among texts.
func textOf(texts []Text, field string) (Text, bool) {
	i := slices.IndexFunc(texts, func(t Text) bool { return t.Field == field })
	if i < 0 {
		return Text{}, false
	}
	return texts[i], true
}

// commonFields apply to every type (content.Check).
var commonFields = []Field{
	{"id", true, "The check's ID within its step (`[a-z0-9-]+`); results are named `<step-id>.<id>`."},
	{"type", true, "One of the types below."},
	{"needs", false, "IDs of earlier checks of the same step that must pass first; until they do, this one waits (\"can't check yet\") instead of failing a second time."},
	{"pass", false, "Message key for the passing text, in place of the type's shared one."},
	{"fail", false, "Message key for the failing text, in place of the type's shared one."},
	{"expect", false, "Message key for what is expected, shown as 기대."},
	{"hint", false, "Message key of a sentence appended to any failure of this check (start it with a space); it has no placeholders."},
}

// decode has the check's own fields (content.Check.Fields) decoded
// into fields, a pointer to its type's struct of them (TOML tags),
// strictly (content.Check.DecodeFields), and holds them to the type's
// Kind: a field the type does not read, a required one missing. A key of
// a sub-table no type knows, or a value of the wrong TOML type, keeps
// the lab from loading, as a key lab.toml's schema does not know does
// (content.LoadDir).
func (c *compiler) decode(fields any) {
	c.decoded = fields
	kind := c.typ.Kind()
	var fe *content.FieldsError
	if errors.As(c.spec.DecodeFields(fields), &fe) {
		var nested []string
		for _, k := range fe.Unknown {
			if len(k) == 1 {
				c.fields = append(c.fields, checkErr{msg: say("labkit.field_not_for_type", "field", k[0], "type", kind.Type)})
			} else {
				nested = append(nested, strings.Join(k, "."))
			}
		}
		c.refuse(nested)
		switch {
		case fe.Bad != "" && fe.BadKey != nil:
			at := c.keySpan(strings.Join(fe.BadKey, "."))
			c.fail(&fault{Problem: &content.Problem{Line: at.Line, Col: at.Col, Msg: fe.Bad}})
		case fe.Bad != "":
			c.fail(&fault{Problem: &content.Problem{Msg: fe.Bad}})
		}
	}
	v := reflect.ValueOf(fields).Elem()
	for _, f := range kind.Fields {
		if fv, ok := tomlField(v, f.Name); f.Required && (!ok || fv.IsZero()) {
			c.fields = append(c.fields, checkErr{msg: say("labkit.field_required", "field", f.Name, "type", kind.Type)})
		}
	}
}

// knownKeys are the fields some check type reads.
func knownKeys() map[string]bool {
	m := map[string]bool{}
	for _, t := range checkTypes {
		for _, f := range t.Kind().Fields {
			m[f.Name] = true
		}
	}
	return m
}

// refuseUnknown refuses the keys of the check that no type reads.
func (c *compiler) refuseUnknown() {
	known := knownKeys()
	var unknown []string
	for k := range c.spec.Fields {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	c.refuse(unknown)
}

// refuse makes keys (paths within the check) the lab's load error, at
// the first of them in lab.toml.
func (c *compiler) refuse(keys []string) {
	if len(keys) == 0 {
		return
	}
	slices.SortFunc(keys, func(a, b string) int {
		pa, pb := c.keySpan(a), c.keySpan(b)
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		if pa.Col != pb.Col {
			return pa.Col - pb.Col
		}
		return strings.Compare(a, b)
	})
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = "steps.checks." + k
	}
	at := c.keySpan(keys[0])
	c.fail(faultAt("", at, "content.unknown_keys", "keys", strings.Join(full, ", ")))
}

// keySpan is where lab.toml sets key in the check, or its first part
// (a key of a rule), or the check, or (written inline) its step.
func (c *compiler) keySpan(key string) content.Span {
	for k := key; ; {
		if s := c.spec.Keys[k]; s.Line > 0 {
			return s
		}
		i := strings.LastIndex(k, ".")
		if i < 0 {
			break
		}
		k = k[:i]
	}
	if c.spec.At.Line > 0 {
		return c.spec.At
	}
	return c.step.At
}

// fail keeps the first error that keeps the lab from loading.
func (c *compiler) fail(f *fault) {
	if c.fatal == nil {
		f.File = path.Join(c.text.Where, "lab.toml")
		c.fatal = f
	}
}

// tomlField is the field of struct v whose TOML key is key, looking
// into embedded structs.
func tomlField(v reflect.Value, key string) (reflect.Value, bool) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if fv, ok := tomlField(v.Field(i), key); ok {
				return fv, true
			}
			continue
		}
		if strings.Split(f.Tag.Get("toml"), ",")[0] == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// Reference renders the declarative check reference for docs/AUTHORING.md.
func Reference() string {
	var b strings.Builder
	table := func(fields []Field) {
		b.WriteString("| field | required | what it is |\n|---|---|---|\n")
		for _, f := range fields {
			req := ""
			if f.Required {
				req = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Name, req, strings.ReplaceAll(f.Doc, "|", "\\|"))
		}
	}
	texts := func(ts []Text) {
		b.WriteString("\n| message | placeholders it may use |\n|---|---|\n")
		for _, t := range ts {
			ps := "none"
			if len(t.Placeholders) > 0 {
				ps = "`{" + strings.Join(t.Placeholders, "}`, `{") + "}`"
			}
			fmt.Fprintf(&b, "| `%s` | %s |\n", t.Field, ps)
		}
	}
	b.WriteString("### Fields of every check\n\n")
	table(commonFields)
	b.WriteString("\nEach message key names a text of the lab's messages*.toml (or a shared one). A type fills the placeholders its table below lists, in each message it shows: `{path}` is the file as the learner sees it (under their lab root), `{where}` the place (file:line:column, or the object), `{got}` what was observed, `{want}` what was wanted. A text with another placeholder, or a message field the type does not show, is an authoring error at that field's line, naming the key and where its text is, whether or not a case of verify.toml shows it. `hint` is every type's, without placeholders.\n")
	for _, k := range Kinds() {
		fmt.Fprintf(&b, "\n### `type = \"%s\"`\n\n%s\n\n", k.Type, k.Doc)
		table(k.Fields)
		texts(k.Texts)
	}
	b.WriteString("\n### Rules (`[[steps.checks.rules]]`)\n\n")
	table(ruleFields)
	texts(ruleTexts)
	return b.String()
}

func msgf(key string, kv ...any) string { return content.Msg(key, kv...) }
