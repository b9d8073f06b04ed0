package cluster

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/labhub/labmate/observe"
)

// discoveryKey names discovery's errors in the health map.
const discoveryKey = "discovery"

// resolveScope asks the server which of the scope's resources it serves,
// at which version and scope. A resource it does not serve (a CRD not
// installed) is missing: not watched, and named for the learner. An
// error is discovery failing as a whole (the server unreachable).
func resolveScope(m meta.RESTMapper, scope Scope) (Scope, []observe.Missing, error) {
	out := Scope{Namespaces: scope.Namespaces}
	var missing []observe.Missing
	for _, w := range scope.Watches {
		r, err := resolveResource(m, w.Resource)
		switch {
		case meta.IsNoMatchError(err):
			missing = append(missing, observe.Missing{Resource: w.Resource.String(), Kind: w.Resource.Kind})
			continue
		case err != nil:
			return Scope{}, nil, err
		}
		w.Resource = r
		out.Watches = append(out.Watches, w)
	}
	return out, missing, nil
}

func resolveResource(m meta.RESTMapper, r Resource) (Resource, error) {
	// An empty group asks every group: keep the matches of the group the
	// lab named, in the server's order of preference.
	all, err := m.ResourcesFor(schema.GroupVersionResource{Group: r.Group, Resource: r.Name})
	if err != nil {
		return r, err
	}
	i := slices.IndexFunc(all, func(g schema.GroupVersionResource) bool { return g.Group == r.Group })
	if i < 0 {
		return r, &meta.NoResourceMatchError{PartialResource: schema.GroupVersionResource{Group: r.Group, Resource: r.Name}}
	}
	gvr := all[i]
	kinds, err := m.KindsFor(gvr)
	if err != nil {
		return r, err
	}
	j := slices.IndexFunc(kinds, func(k schema.GroupVersionKind) bool { return k.Group == gvr.Group && k.Version == gvr.Version })
	if j < 0 {
		return r, &meta.NoResourceMatchError{PartialResource: gvr}
	}
	gvk := kinds[j]
	mapping, err := m.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return r, err
	}
	return Resource{Group: gvr.Group, Version: gvr.Version, Name: gvr.Resource, Kind: gvk.Kind,
		Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}

// resolve resolves the scope, retrying with backoff while discovery
// fails (the state loop hears of each failure as the health of
// "discovery"), until ctx ends.
func (s *session) resolve() (Scope, []observe.Missing, bool) {
	backoff := probeRetryMin
	for {
		scope, missing, err := resolveScope(s.src.mapper, s.src.opts.Scope)
		if err == nil {
			s.report(connEvent{kind: evHealth, informer: discoveryKey})
			return scope, missing, true
		}
		s.report(connEvent{kind: evHealth, informer: discoveryKey, err: fmt.Errorf("discovery: %w", err)})
		select {
		case <-s.ctx.Done():
			return Scope{}, nil, false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, probeRetryMax)
	}
}

// typed turns an object of a kind Kubernetes' Go types know into that
// type (what checks written in Go read), with no apiVersion or kind set,
// as typed informers deliver them; a custom resource stays unstructured.
func typed(u *unstructured.Unstructured) runtime.Object {
	gvk := u.GroupVersionKind()
	if !scheme.Scheme.Recognizes(gvk) {
		return u
	}
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return u
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), obj); err != nil {
		return u
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return obj
}
