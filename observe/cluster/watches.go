package cluster

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// watchSpec is one informer: a resource, the list/watch calls that scope
// it, and a client-side filter repeating the selectors (a fake client,
// or a server that ignores a selector, must not widen what labmate sees).
type watchSpec struct {
	kind      string // observe.ObjectObs.Kind
	desc      string // names the informer in error texts: "pods in gpu-lab"
	resource  string // what RBAC names: "pods", "daemonsets.apps"
	namespace string // "" for a cluster-scoped resource
	list      func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error)
	watch     func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error)
	keep      func(u *unstructured.Unstructured) bool
}

// watchSpecs lists the informers of a resolved scope: for each resource,
// in each of the lab's namespaces (or once, cluster-wide), one informer a
// selector (a name, a field selector) or one for every object.
func watchSpecs(c dynamic.Interface, scope Scope) []watchSpec {
	var specs []watchSpec
	for _, w := range scope.Watches {
		namespaces := []string{""}
		if w.Resource.Namespaced {
			namespaces = scope.Namespaces
		}
		for _, ns := range namespaces {
			for _, sel := range selectors(w) {
				specs = append(specs, newSpec(c, w, ns, sel))
			}
		}
	}
	return specs
}

// selectors are the field selectors of a watch's informers: one per name,
// one per field selector, or one that selects everything.
func selectors(w Watch) []string {
	var out []string
	for _, n := range w.Names {
		out = append(out, fields.OneTermEqualSelector("metadata.name", n).String())
	}
	if len(out) > 0 {
		return out
	}
	if len(w.Fields) > 0 {
		return w.Fields
	}
	return []string{""}
}

func newSpec(c dynamic.Interface, w Watch, ns, fieldSel string) watchSpec {
	r := w.Resource
	var ri dynamic.ResourceInterface = c.Resource(r.GVR())
	if ns != "" {
		ri = c.Resource(r.GVR()).Namespace(ns)
	}
	desc := r.String()
	if fieldSel != "" {
		desc += " (" + fieldSel + ")"
	}
	if ns != "" {
		desc += " in " + ns
	}
	fsel, _ := fields.ParseSelector(fieldSel)
	lsel, err := labels.Parse(w.Labels)
	if err != nil {
		lsel = labels.Everything()
	}
	tweak := func(o metav1.ListOptions) metav1.ListOptions {
		o.FieldSelector, o.LabelSelector = fieldSel, w.Labels
		return o
	}
	return watchSpec{
		kind: r.Kind, desc: desc, resource: r.String(), namespace: ns,
		list: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return ri.List(ctx, tweak(o))
		},
		watch: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return ri.Watch(ctx, tweak(o))
		},
		keep: func(u *unstructured.Unstructured) bool {
			return (ns == "" || u.GetNamespace() == ns) && lsel.Matches(labels.Set(u.GetLabels())) &&
				(fsel == nil || fsel.Matches(objectFields(u, fsel)))
		},
	}
}

// objectFields are the fields a field selector asks about, read from the
// object by their JSON paths ("metadata.name", "reason",
// "involvedObject.kind").
func objectFields(u *unstructured.Unstructured, sel fields.Selector) fields.Set {
	set := fields.Set{}
	for _, req := range sel.Requirements() {
		v, _, _ := unstructured.NestedFieldNoCopy(u.Object, strings.Split(req.Field, ".")...)
		if v != nil {
			set[req.Field] = fmt.Sprint(v)
		}
	}
	return set
}
