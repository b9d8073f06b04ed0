package labkit

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/labmate/checks"
)

// manifestType: a Kubernetes manifest decodes strictly into its typed
// API object and meets CEL rules over `object`.
type manifestType struct{}

type manifestFields struct {
	Path       string `toml:"path"`
	APIVersion string `toml:"api_version"`
	objectSpec
	Rules []ruleSpec `toml:"rules"`
}

var manifestKind = Kind{"manifest", "A Kubernetes manifest decodes strictly into its typed API object (unknown fields, wrong types and a wrong kind are each reported with their line), and its fields meet CEL rules over `object`.", []Field{
	{"path", true, "The manifest, relative to the lab root (one YAML document)."},
	{"api_version", true, "Its apiVersion (`v1`, `apps/v1`, `node.k8s.io/v1`)."},
	{"kind", true, "Its kind (`Pod`, `DaemonSet`, ...): any built-in type, or a custom resource of the lab's `crds/`, read as the API server reads it (unstructured, validated against the CRD's `openAPIV3Schema`, a field the schema does not declare refused)."},
	{"name", false, "The metadata.name it must have."},
	{"namespace", false, "The metadata.namespace it must have."},
	{"rules", false, "Conditions on the object: `[[...rules]]` tables, see Rules."},
}, []Text{
	{"pass", []string{"path", "kind"}},
	{"fail", []string{"path", "where", "got"}},
}}

func (manifestType) Kind() Kind { return manifestKind }

// Vars: a manifest is judged from its file alone, also while the
// cluster is off or stale.
func (manifestType) Vars() []string { return []string{"object"} }

func (manifestType) Compile(c *compiler) check {
	d := &manifestCheck{base: c.base()}
	c.decode(&d.manifestFields)
	if gv, err := schema.ParseGroupVersion(d.APIVersion); err != nil {
		c.problemAt("api_version", "labkit.unknown_kind", "api_version", d.APIVersion, "kind", d.Kind)
	} else {
		c.decodable(gv.WithKind(d.Kind), "api_version")
	}
	d.rules = c.rules(d.Rules)
	return d
}

type manifestCheck struct {
	base
	manifestFields
	rules []rule
}

func (d *manifestCheck) Files() []string { return []string{d.Path} }
func (d *manifestCheck) Live() bool      { return false }

func (d *manifestCheck) Eval(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	rel, p := d.Path, checks.Shown(in, d.Path)
	label := in.Msg("labkit.fact.file", "path", rel)
	obj, m, r := cv.manifest(in, d.id, rel, d.APIVersion, d.Kind)
	if m == nil {
		return r, &checks.Fact{Label: label, Value: r.Observed}
	}
	var fc *checks.FieldCheck
	if mo, ok := obj.(metav1.Object); ok && d.Name != "" {
		fc = checks.ObjectFields(in.Msg, m, mo, d.Name, d.Namespace)
	} else {
		fc = checks.NewFieldCheck(in.Msg, m)
	}
	v := vars{object: cv.toCEL(d.Kind, obj), cluster: cv}
	applyRules(in, d.rules, fc, v, d.ref(), func(field string) (string, int) { return p, m.Line(field) })
	res := fc.Result(d.id, text(in, d.spec.Pass, "labkit.manifest.ok", "path", p, "kind", d.Kind))
	if res.Status != checks.Passed && d.spec.Fail != "" {
		res.Message = in.Msg(d.spec.Fail, "path", p, "where", res.Where, "got", res.Observed)
	}
	return res, &checks.Fact{Label: label, Value: res.Observed}
}
