package labkit

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/labhub/labmate/content"
)

// The declarative check types: what each is for and which fields of
// content.Check it reads. This table is the one source of both the
// validation of a lab's checks and the reference in docs/AUTHORING.md
// (Reference renders it; a test fails when the two drift).

// Field documents one field of a declarative check.
type Field struct {
	Name     string // its TOML key
	Required bool
	Doc      string
}

// Kind documents one type of declarative check.
type Kind struct {
	Type   string
	Doc    string
	Fields []Field
}

// commonFields apply to every type.
var commonFields = []Field{
	{"id", true, "The check's ID within its step (`[a-z0-9-]+`); results are named `<step-id>.<id>`."},
	{"type", true, "One of the types below."},
	{"needs", false, "IDs of earlier checks of the same step that must pass first; until they do, this one waits (\"can't check yet\") instead of failing a second time."},
	{"pass", false, "Message key for the passing text (placeholders as for `fail`); each type has a shared default."},
	{"fail", false, "Message key for the failing text, in place of the type's shared one. Placeholders: `{path}` (the file as the learner sees it), `{where}`, `{got}`, `{want}`, `{key}`, `{object}`, `{line}`."},
	{"expect", false, "Message key for what is expected, shown as 기대."},
	{"hint", false, "Message key of a sentence appended to any failure of this check (start it with a space)."},
}

// Kinds are the declarative check types.
var Kinds = []Kind{
	{"file", "A lab file exists (any regular file, even empty), and is executable when asked. Its `fail` text is for a file that is not there (or not a readable regular file); a missing execute bit has its own shared text, with `hint` appended.", []Field{
		{"path", true, "The file, relative to the lab root."},
		{"executable", false, "`true`: the file must have an execute bit (`chmod +x`)."},
	}},
	{"field", "A field of a TOML or YAML file equals a value or matches a pattern. The file is parsed with a real parser; a parse error is reported with its line and column, a wrong value with the line of its key.", []Field{
		{"path", true, "The file, relative to the lab root."},
		{"format", false, "`toml` or `yaml`; default from the file's extension."},
		{"key", true, "The field: a TOML key path (`plugins.\"io.containerd.grpc.v1.cri\".containerd.default_runtime_name`) or a YAML path (`spec.containers[0].image`, `metadata.labels[app.kubernetes.io/name]`)."},
		{"equals", false, "The value it must have, typed: `equals = true` wants a boolean, `equals = \"true\"` a string, `equals = 2` an integer. One of `equals` and `matches` is required."},
		{"matches", false, "A regular expression (RE2) the string value must match."},
	}},
	{"manifest", "A Kubernetes manifest decodes strictly into its typed API object (unknown fields, wrong types and a wrong kind are each reported with their line), and its fields meet CEL rules over `object`.", []Field{
		{"path", true, "The manifest, relative to the lab root (one YAML document)."},
		{"api_version", true, "Its apiVersion (`v1`, `apps/v1`, `node.k8s.io/v1`)."},
		{"kind", true, "Its kind (`Pod`, `DaemonSet`, ...): any built-in type."},
		{"name", false, "The metadata.name it must have."},
		{"namespace", false, "The metadata.namespace it must have."},
		{"rules", false, "Conditions on the object: `[[...rules]]` tables, see Rules."},
	}},
	{"object", "A live object labmate watches meets CEL rules over `object` (and, with `file`, the learner's manifest as `file`, so a rule can say which side is off). Evaluated only while the cluster is synced; stale data never passes.", []Field{
		{"kind", true, "The object's kind, one labmate watches: Namespace, Node, Pod, Event, ConfigMap, DaemonSet, RuntimeClass."},
		{"namespace", false, "Its namespace (empty for Node, Namespace, RuntimeClass)."},
		{"name", true, "Its name."},
		{"file", false, "A manifest (relative path) decoded as `file` for the rules; the check waits until it decodes."},
		{"missing", false, "Message key for the text when the object does not exist (placeholders `{object}`, `{kind}`, `{name}`, `{namespace}`)."},
		{"rules", false, "Conditions on the object: see Rules. Without rules the object must only exist."},
	}},
	{"report", "A KEY=VALUE report file: exactly the keys, in order, one per line. With `values`, each line's value must equal what labmate computes from the live objects at that moment (never a literal the author guessed).", []Field{
		{"path", true, "The report, relative to the lab root."},
		{"keys", true, "Its keys, in order."},
		{"no_spaces", false, "`true`: spaces around `=` are a mistake (otherwise read past)."},
		{"values", false, "Key → CEL expression over `cluster` giving the expected value (a string, number or boolean); a key without one is only checked for shape."},
		{"why", false, "Key → message key saying where the expected value comes from (shown with a wrong value)."},
		{"remember", false, "`true`: once the file's values equalled the live ones while labmate watched, that content stays right (remembered by its hash in the state file), so fixing the incident afterwards does not turn the report red; editing the file asks again."},
	}},
	{"witness", "Something was true in the past: the object met the `held` condition, or an event with reason `event` was recorded for it, at some point while labmate watched (remembered in the state file, tied to the object's UID). A later step's change does not turn it red, not even deleting the object or making another of its name; with `remain`, deleting or recreating the object does.", []Field{
		{"kind", true, "The object's kind (as for `object`)."},
		{"namespace", false, "Its namespace."},
		{"name", true, "Its name."},
		{"held", false, "A CEL condition over `object` (and `cluster`) that must have held once. One of `held` and `event` is required."},
		{"event", false, "An event reason (`FailedScheduling`) that must have been recorded for the object; the lab's `[cluster] event_reasons` must include it."},
		{"remain", false, "`true`: the object must still exist, with the UID it had when it was witnessed."},
	}},
}

// ruleFields document a rule of a manifest or object check.
var ruleFields = []Field{
	{"expr", true, "A CEL condition (must be boolean). A field that is absent makes it false, not an error."},
	{"field", false, "The field it is about (`spec.nodeSelector`): the message names its line in the file, or it in the live object."},
	{"show", false, "A CEL expression for what was observed (`{got}` in the message; 관측 in the TUI)."},
	{"expect", false, "Message key for what is expected (기대)."},
	{"fail", true, "Message key for the failing text (placeholders `{got}`, `{field}`, `{line}`, `{path}`, `{object}`)."},
}

// checkFields maps a TOML key of content.Check to its struct field,
// found by reflection once.
var checkFields = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeOf(content.Check{})
	for i := 0; i < t.NumField(); i++ {
		if tag := t.Field(i).Tag.Get("toml"); tag != "" {
			m[strings.Split(tag, ",")[0]] = i
		}
	}
	return m
})

// validateFields returns the problems of a check's fields for its type:
// an unknown type, a required field missing, a field the type does not read.
func validateFields(c content.Check) []string {
	i := slices.IndexFunc(Kinds, func(k Kind) bool { return k.Type == c.Type })
	if i < 0 {
		types := make([]string, len(Kinds))
		for j, k := range Kinds {
			types[j] = k.Type
		}
		return []string{msgf("labkit.bad_type", "type", c.Type, "types", strings.Join(types, ", "))}
	}
	allowed := map[string]Field{}
	for _, f := range append(slices.Clone(commonFields), Kinds[i].Fields...) {
		allowed[f.Name] = f
	}
	var probs []string
	v := reflect.ValueOf(c)
	for name, idx := range checkFields() {
		set := !v.Field(idx).IsZero()
		f, ok := allowed[name]
		switch {
		case set && !ok:
			probs = append(probs, msgf("labkit.field_not_for_type", "field", name, "type", c.Type))
		case !set && ok && f.Required:
			probs = append(probs, msgf("labkit.field_required", "field", name, "type", c.Type))
		}
	}
	slices.Sort(probs)
	return probs
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
	b.WriteString("### Fields of every check\n\n")
	table(commonFields)
	for _, k := range Kinds {
		fmt.Fprintf(&b, "\n### `type = \"%s\"`\n\n%s\n\n", k.Type, k.Doc)
		table(k.Fields)
	}
	b.WriteString("\n### Rules (`[[steps.checks.rules]]`)\n\n")
	table(ruleFields)
	return b.String()
}

func msgf(key string, kv ...any) string { return content.Msg(key, kv...) }
