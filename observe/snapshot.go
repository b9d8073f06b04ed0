package observe

import (
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// ObjectKey names a cluster object.
type ObjectKey struct {
	Kind      string
	Namespace string
	Name      string
}

// Snapshot is everything observed up to a moment, the only input checks
// get. Maps are never mutated after a Snapshot is handed out.
type Snapshot struct {
	Time    time.Time
	Files   map[string]FileObs
	Scripts map[string]map[string]ScriptObs // script path -> scenario -> latest run
	Cluster ClusterObs
	Objects map[ObjectKey]runtime.Object
	Synced  map[string]bool // source name -> initial state delivered
}

// File returns what was observed at path; a path never observed reads as
// missing.
func (s *Snapshot) File(path string) FileObs {
	if f, ok := s.Files[path]; ok {
		return f
	}
	return FileObs{Path: path, State: FileMissing}
}

// Object returns the live object, or nil.
func (s *Snapshot) Object(kind, namespace, name string) runtime.Object {
	return s.Objects[ObjectKey{kind, namespace, name}]
}

// ObjectsOf returns every live object of a kind, ordered by namespace/name.
func (s *Snapshot) ObjectsOf(kind string) []runtime.Object {
	var keys []ObjectKey
	for k := range s.Objects {
		if k.Kind == kind {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Namespace != keys[j].Namespace {
			return keys[i].Namespace < keys[j].Namespace
		}
		return keys[i].Name < keys[j].Name
	})
	out := make([]runtime.Object, len(keys))
	for i, k := range keys {
		out[i] = s.Objects[k]
	}
	return out
}

// ScriptRuns returns the latest runs of a script by scenario.
func (s *Snapshot) ScriptRuns(script string) map[string]ScriptObs {
	return s.Scripts[script]
}

// Store accumulates observations. It is not safe for concurrent use: the
// engine owns one and serialises Apply.
type Store struct {
	snap Snapshot
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{snap: Snapshot{
		Files:   map[string]FileObs{},
		Scripts: map[string]map[string]ScriptObs{},
		Objects: map[ObjectKey]runtime.Object{},
		Synced:  map[string]bool{},
		Cluster: ClusterObs{State: ClusterOff},
	}}
}

// Apply folds one observation into the store.
func (st *Store) Apply(o Observation) {
	s := &st.snap
	if o.Time.After(s.Time) {
		s.Time = o.Time
	}
	switch {
	case o.File != nil:
		s.Files[o.File.Path] = *o.File
	case o.Object != nil:
		k := ObjectKey{o.Object.Kind, o.Object.Namespace, o.Object.Name}
		if o.Object.Op == OpDelete {
			delete(s.Objects, k)
		} else {
			s.Objects[k] = o.Object.Object
		}
	case o.Script != nil:
		runs := s.Scripts[o.Script.Script]
		if runs == nil {
			runs = map[string]ScriptObs{}
			s.Scripts[o.Script.Script] = runs
		}
		runs[o.Script.Scenario] = *o.Script
	case o.Cluster != nil:
		s.Cluster = *o.Cluster
	case o.Synced != nil:
		s.Synced[o.Synced.Source] = true
	}
}

// Clone returns a store that starts where this one stands and goes its
// own way.
func (st *Store) Clone() *Store { return &Store{snap: *st.Snapshot()} }

// Snapshot returns a copy that later Apply calls do not change.
func (st *Store) Snapshot() *Snapshot {
	s := st.snap
	s.Files = make(map[string]FileObs, len(st.snap.Files))
	for k, v := range st.snap.Files {
		s.Files[k] = v
	}
	s.Scripts = make(map[string]map[string]ScriptObs, len(st.snap.Scripts))
	for k, v := range st.snap.Scripts {
		runs := make(map[string]ScriptObs, len(v))
		for sk, sv := range v {
			runs[sk] = sv
		}
		s.Scripts[k] = runs
	}
	s.Objects = make(map[ObjectKey]runtime.Object, len(st.snap.Objects))
	for k, v := range st.snap.Objects {
		s.Objects[k] = v
	}
	s.Synced = make(map[string]bool, len(st.snap.Synced))
	for k, v := range st.snap.Synced {
		s.Synced[k] = v
	}
	return &s
}
