package labkit

import (
	"errors"

	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// view is what one evaluation of a step sees: the snapshot, and each
// thing it reads converted or parsed at most once, however many checks
// read it (two field checks of one TOML file, a manifest check and an
// object check of one manifest). A step is evaluated on every file or
// watch event; a view lives for one evaluation, so nothing in it is stale.
type view struct {
	snap      *observe.Snapshot
	converted map[runtime.Object]map[string]any
	tomls     map[string]checks.TOMLFile
	yamls     map[string]parsedYAML
	manifests map[manifestKey]decodedManifest
	custom    customKinds // the lab's custom resource kinds
}

type parsedYAML struct {
	doc *yamlv3.Node
	bad *checks.Result // the file is not YAML text
}

type manifestKey struct{ rel, apiVersion, kind string }

type decodedManifest struct {
	obj runtime.Object
	m   *checks.Manifest // nil when it did not decode
	r   checks.Result
}

func newView(snap *observe.Snapshot, custom customKinds) *view {
	return &view{snap: snap, converted: map[runtime.Object]map[string]any{}, tomls: map[string]checks.TOMLFile{},
		yamls: map[string]parsedYAML{}, manifests: map[manifestKey]decodedManifest{}, custom: custom}
}

// toml is checks.OpenTOML of rel, its results named for id.
func (c *view) toml(in checks.Input, id, rel string) checks.TOMLFile {
	tf, ok := c.tomls[rel]
	if !ok {
		tf = checks.OpenTOML(in, id, rel)
		c.tomls[rel] = tf
	}
	tf.File.ID, tf.Parse.ID = id+".file", id+".toml"
	return tf
}

// yaml is rel read and parsed as YAML, or why it could not be, named
// for id.
func (c *view) yaml(in checks.Input, id, rel string) (*yamlv3.Node, *checks.Result) {
	p, ok := c.yamls[rel]
	if !ok {
		var body string
		if body, p.bad = checks.ReadText(in, id, rel); p.bad == nil {
			p.doc, p.bad = checks.ParseYAML(in, id, rel, body)
		}
		c.yamls[rel] = p
	}
	if p.bad != nil {
		bad := *p.bad
		bad.ID = id
		return nil, &bad
	}
	return p.doc, nil
}

// manifest is rel decoded strictly as apiVersion kind: a built-in kind
// into its typed object (checks.DecodeManifestInto), one of the lab's
// custom resources unstructured and validated through its CRD's schema.
// It returns the object and its manifest, or nil and the result saying
// why not, named for id.
func (c *view) manifest(in checks.Input, id, rel, apiVersion, kind string) (runtime.Object, *checks.Manifest, checks.Result) {
	key := manifestKey{rel, apiVersion, kind}
	dm, ok := c.manifests[key]
	if !ok {
		gv, err := schema.ParseGroupVersion(apiVersion)
		gvk := gv.WithKind(kind)
		ck := c.custom[gvk]
		switch {
		case err != nil:
		case scheme.Scheme.Recognizes(gvk):
			if dm.obj, err = scheme.Scheme.New(gvk); err == nil {
				dm.m, dm.r = checks.DecodeManifestInto(in, id, rel, apiVersion, kind, dm.obj)
			}
		case ck != nil:
			u := &unstructured.Unstructured{}
			dm.obj = u
			dm.m, dm.r = checks.DecodeManifestWith(in, id, rel, apiVersion, kind, func(text string, tree *yamlv3.Node) *checks.YAMLProblem {
				var prob *checks.YAMLProblem
				u.Object, prob = ck.decode(text, tree)
				return prob
			})
		default: // refused when the lab loads (compile)
			err = errors.New(in.Msg("labkit.unknown_kind", "api_version", apiVersion, "kind", kind))
		}
		if err != nil {
			dm = decodedManifest{r: checks.Result{Status: checks.Error, Message: err.Error()}}
		}
		if dm.m == nil {
			dm.obj = nil
		}
		c.manifests[key] = dm
	}
	dm.r.ID = id
	return dm.obj, dm.m, dm.r
}
