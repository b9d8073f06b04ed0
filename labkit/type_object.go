package labkit

import (
	"slices"
	"strings"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe/cluster"
)

// objectSpec names an object: a live one for object and witness checks,
// a manifest's for manifest checks.
type objectSpec struct {
	Kind      string `toml:"kind"`
	Namespace string `toml:"namespace"`
	Name      string `toml:"name"`
}

// ref names the object in messages.
func (o objectSpec) ref() string {
	if o.Namespace != "" {
		return o.Kind + " " + o.Namespace + "/" + o.Name
	}
	return o.Kind + " " + o.Name
}

// requireWatched says when the object is of a kind the lab does not
// watch ([cluster] watch).
func (o objectSpec) requireWatched(c *compiler) {
	c.readsKinds(o.Kind)
	if kinds := c.scope.Kinds(); !slices.Contains(kinds, o.Kind) {
		c.problem("labkit.unwatched_kind", "kind", o.Kind, "kinds", strings.Join(kinds, ", "))
	}
}

// objectType: a live object labmate watches meets CEL rules.
type objectType struct{}

type objectFields struct {
	objectSpec
	File    string     `toml:"file"`
	Missing string     `toml:"missing"`
	Rules   []ruleSpec `toml:"rules"`
}

var objectKind = Kind{"object", "A live object labmate watches meets CEL rules over `object` (and, with `file`, the learner's manifest as `file`, so a rule can say which side is off). Evaluated only while the cluster is synced; stale data never passes.", []Field{
	{"kind", true, "The object's kind (`Pod`, `Deployment`, a custom resource's `ClusterPolicy`): one of the resources the lab's `[cluster] watch` lists."},
	{"namespace", false, "Its namespace (empty for a cluster-scoped kind: Node, Namespace, PriorityClass, ...)."},
	{"name", true, "Its name."},
	{"file", false, "A manifest (relative path) decoded as `file` for the rules, as the live object's kind and version (a custom resource through its CRD's schema in `crds/`); the check waits until it decodes."},
	{"missing", false, "Message key for the text when the object does not exist."},
	{"rules", false, "Conditions on the object: see Rules. Without rules the object must only exist."},
}, []Text{
	{"pass", []string{"object"}},
	{"fail", []string{"object", "got"}},
	{"missing", []string{"object", "kind", "name", "namespace"}},
}}

func (objectType) Kind() Kind     { return objectKind }
func (objectType) Vars() []string { return []string{"object", "file", "cluster"} }

func (objectType) Compile(c *compiler) check {
	d := &objectCheck{base: c.base()}
	c.decode(&d.objectFields)
	c.message("missing", d.Missing)
	d.requireWatched(c)
	if i := slices.IndexFunc(c.scope.Watches, func(w cluster.Watch) bool { return w.Resource.Kind == d.Kind }); i >= 0 && d.File != "" {
		c.decodable(c.scope.Watches[i].Resource.GVK(), "file")
	}
	d.rules = c.rules(d.Rules)
	return d
}

type objectCheck struct {
	base
	objectFields
	rules []rule
}

func (d *objectCheck) Files() []string {
	if d.File != "" {
		return []string{d.File}
	}
	return nil
}

func (d *objectCheck) Live() bool { return true }

func (d *objectCheck) Eval(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	ref := d.ref()
	label := in.Msg("labkit.fact.object", "object", ref)
	o := in.Snap.Object(d.Kind, d.Namespace, d.Name)
	if o == nil {
		r := checks.Fail(d.id, text(in, d.Missing, "labkit.object.missing", "object", ref, "kind", d.Kind, "name", d.Name, "namespace", d.Namespace),
			ref, in.Msg("cluster.absent"), ref)
		return r, &checks.Fact{Label: label, Value: in.Msg("cluster.absent")}
	}
	v := vars{object: cv.toCEL(d.Kind, o), cluster: cv}
	if d.File != "" {
		fobj, bad := decodeAny(in, cv, d.id, d.File, cv.toCEL(d.Kind, o))
		if bad != nil {
			if bad.Status == checks.Failed { // the learner's file: wait for it, saying why
				bad.Status = checks.Waiting
				bad.Message = in.Msg("labkit.object.wait_file", "path", checks.Shown(in, d.File), "why", bad.Message)
			}
			return *bad, &checks.Fact{Label: label, Value: in.Msg("labkit.object.present")}
		}
		v.file = fobj
	}
	fc := checks.NewFieldCheck(in.Msg, &checks.Manifest{Rel: ref})
	applyRules(in, d.rules, fc, v, ref, func(string) (string, int) { return ref, 0 })
	res := fc.Result(d.id, text(in, d.spec.Pass, "labkit.object.ok", "object", ref))
	if res.Status != checks.Passed {
		res.Where = ref
		if d.spec.Fail != "" {
			res.Message = in.Msg(d.spec.Fail, "object", ref, "got", res.Observed)
		}
	}
	obs := res.Observed
	if obs == "" {
		obs = in.Msg("labkit.object.present")
	}
	return res, &checks.Fact{Label: label, Value: obs}
}

// decodeAny decodes a learner's manifest for an object check's `file`: as
// the live object's own type, strictly. When it does not decode, bad says
// why (failed for the file, an error when the live object's type is not
// one labmate can decode).
func decodeAny(in checks.Input, cv *view, id, rel string, live map[string]any) (obj map[string]any, bad *checks.Result) {
	apiVersion, _ := live["apiVersion"].(string)
	kind, _ := live["kind"].(string)
	typed, m, r := cv.manifest(in, id, rel, apiVersion, kind)
	if m == nil {
		return nil, &r
	}
	return cv.toCEL(kind, typed), nil
}
