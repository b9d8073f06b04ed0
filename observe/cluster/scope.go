package cluster

import "slices"

// Watch is one resource a lab watches, and how it narrows what it sees.
type Watch struct {
	Resource Resource
	// Names, when set, are the only objects watched (one informer each,
	// by metadata.name): the lab's nodes, its namespaces.
	Names []string
	// Fields are field selectors, one informer each, whose objects
	// together are what is watched (events by reason).
	Fields []string
	// Labels is a label selector ("" for every object).
	Labels string
}

// Scope is everything a lab watches: its resources, the namespaced ones
// in the lab's namespaces, the cluster-scoped ones cluster-wide or by
// name.
type Scope struct {
	Namespaces []string
	Watches    []Watch
}

// Empty says the lab watches nothing in a cluster.
func (s Scope) Empty() bool { return len(s.Watches) == 0 }

// Kinds are the kinds the scope delivers, in the order declared.
func (s Scope) Kinds() []string {
	var out []string
	for _, w := range s.Watches {
		if !slices.Contains(out, w.Resource.Kind) {
			out = append(out, w.Resource.Kind)
		}
	}
	return out
}

// Find returns the watch of a kind.
func (s Scope) Find(kind string) (Watch, bool) {
	for _, w := range s.Watches {
		if w.Resource.Kind == kind {
			return w, true
		}
	}
	return Watch{}, false
}
