package cluster

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Resource is one kind of object a cluster serves, named as RBAC and
// kubectl name it (resource.group) with the kind its objects carry.
type Resource struct {
	Group      string `json:"group,omitempty"`
	Version    string `json:"version"`
	Name       string `json:"name"` // the plural resource: "pods", "daemonsets"
	Kind       string `json:"kind"`
	Namespaced bool   `json:"namespaced"`
}

// String is kubectl's spelling: "pods", "daemonsets.apps".
func (r Resource) String() string {
	if r.Group == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}

// GVR is the resource with its version.
func (r Resource) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Name}
}

// GVK is the kind with its group and version.
func (r Resource) GVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// builtinJSON is what the sandbox's API server (Kubernetes 1.34) lists
// through discovery: every resource that can be listed and watched.
// TestBuiltinTableMatchesTheSandbox regenerates it (-update) and fails
// when it drifts.
//
//go:embed builtin.json
var builtinJSON []byte

var builtin = sync.OnceValue(func() []Resource {
	var rs []Resource
	if err := json.Unmarshal(builtinJSON, &rs); err != nil {
		panic("observe/cluster: builtin.json: " + err.Error())
	}
	return rs
})

// Table is the resources a lab may watch: Kubernetes' own and the lab's
// custom resources (its CRDs). It is the one list labmate keeps of kinds:
// the cluster source, the authoring kit, the RBAC a lab needs and doctor
// all read it.
type Table struct {
	all []Resource
}

// Builtin is the table of Kubernetes' own resources.
func Builtin() *Table { return &Table{all: builtin()} }

// ErrNotCRD is a manifest in a lab's crds/ that is not a CRD.
var ErrNotCRD = errors.New("not a CustomResourceDefinition")

// crdDoc is what labmate reads of a CustomResourceDefinition.
type crdDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Group string `json:"group"`
		Names struct {
			Plural string `json:"plural"`
			Kind   string `json:"kind"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Versions []struct {
			Name    string `json:"name"`
			Served  bool   `json:"served"`
			Storage bool   `json:"storage"`
		} `json:"versions"`
	} `json:"spec"`
}

// ParseCRD reads the resource a CustomResourceDefinition manifest
// defines (apiextensions.k8s.io/v1), at its storage version.
func ParseCRD(raw []byte) (Resource, error) {
	var d crdDoc
	if err := yaml.Unmarshal(raw, &d); err != nil {
		return Resource{}, err
	}
	if d.APIVersion != "apiextensions.k8s.io/v1" || d.Kind != "CustomResourceDefinition" {
		return Resource{}, fmt.Errorf("%w (apiVersion %q, kind %q)", ErrNotCRD, d.APIVersion, d.Kind)
	}
	s := d.Spec
	r := Resource{Group: s.Group, Name: s.Names.Plural, Kind: s.Names.Kind, Namespaced: s.Scope == "Namespaced"}
	for _, v := range s.Versions {
		if v.Storage || r.Version == "" && v.Served {
			r.Version = v.Name
		}
	}
	if r.Group == "" || r.Name == "" || r.Kind == "" || r.Version == "" || s.Scope != "Namespaced" && s.Scope != "Cluster" {
		return Resource{}, fmt.Errorf("%w: group, names.plural, names.kind, scope and a served version are required", ErrNotCRD)
	}
	return r, nil
}

// With returns the table plus custom resources.
func (t *Table) With(custom ...Resource) *Table {
	return &Table{all: append(slices.Clone(t.all), custom...)}
}

// Lookup finds a resource by kubectl's spelling, "resource" for the
// core group or "resource.group" ("daemonsets.apps",
// "widgets.example.com").
func (t *Table) Lookup(spelling string) (Resource, bool) {
	for _, r := range t.all {
		if r.String() == spelling {
			return r, true
		}
	}
	return Resource{}, false
}

// Names are every spelling the table knows, sorted (for a message
// suggesting one).
func (t *Table) Names() []string {
	out := make([]string, 0, len(t.all))
	for _, r := range t.all {
		out = append(out, r.String())
	}
	sort.Strings(out)
	return out
}

// Near returns the known spellings closest to a misspelt one (same
// resource in another group, or a small edit away), at most three.
func (t *Table) Near(spelling string) []string {
	name, _, _ := strings.Cut(spelling, ".")
	var out []string
	for _, s := range t.Names() {
		n, _, _ := strings.Cut(s, ".")
		if n == name || levenshtein.ComputeDistance(s, spelling) <= 2 {
			out = append(out, s)
		}
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// RESTMapper maps the table's kinds and resources without a cluster, for
// tests and for tools that must not reach one.
func (t *Table) RESTMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, r := range t.all {
		scope := meta.RESTScopeRoot
		if r.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		m.AddSpecific(r.GVK(), r.GVR(), r.GVR().GroupVersion().WithResource(strings.ToLower(r.Kind)), scope)
	}
	return m
}
