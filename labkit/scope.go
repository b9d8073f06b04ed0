package labkit

import (
	"bytes"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
)

// CRDDir is where a lab keeps the CustomResourceDefinitions of the custom
// resources it watches: the sandbox installs them, the table of kinds
// learns them.
const CRDDir = "crds"

// scopeOf is what the lab watches in a cluster ([cluster] of lab.toml),
// resolved against the table of kinds: Kubernetes' own and the lab's
// CRDs. Problems are authoring errors placed in lab.toml (or the CRD
// file); a resource with one is left out.
func scopeOf(text *content.Lab) (cluster.Scope, []cluster.Resource, []*fault) {
	crds, probs := readCRDs(text)
	table := cluster.Builtin().With(crds...)
	cl := text.Cluster
	sc := &scopeCompiler{text: text, raw: text.TOML, probs: probs}
	scope := cluster.Scope{Namespaces: slices.Clone(cl.Namespaces)}
	kinds := map[string]string{}
	for _, spelling := range cl.Watch {
		r, ok := table.Lookup(spelling)
		if !ok {
			sc.problem(spelling, "labkit.unknown_resource", "resource", spelling, "near", strings.Join(table.Near(spelling), ", "))
			continue
		}
		if other, dup := kinds[r.Kind]; dup {
			sc.problem(spelling, "labkit.same_kind", "resource", spelling, "other", other, "kind", r.Kind)
			continue
		}
		kinds[r.Kind] = spelling
		if r.Namespaced && len(cl.Namespaces) == 0 {
			sc.problem(spelling, "labkit.no_namespaces", "resource", spelling)
		}
		scope.Watches = append(scope.Watches, sc.watch(r))
	}
	for _, m := range []map[string][]string{cl.Names, cl.Fields} {
		for _, key := range sortedKeys(m) {
			sc.requireWatched(key)
		}
	}
	for _, key := range sortedKeys(cl.Labels) {
		sc.requireWatched(key)
	}
	return scope, crds, sc.probs
}

type scopeCompiler struct {
	text  *content.Lab
	raw   []byte
	probs []*fault
}

// watch is the watch of a resource, narrowed as lab.toml says.
func (sc *scopeCompiler) watch(r cluster.Resource) cluster.Watch {
	cl, spelling := sc.text.Cluster, r.String()
	w := cluster.Watch{Resource: r, Names: slices.Clone(cl.Names[spelling]), Fields: slices.Clone(cl.Fields[spelling]), Labels: cl.Labels[spelling]}
	switch spelling {
	case "namespaces":
		w.Names = append(w.Names, cl.Namespaces...)
	case "nodes":
		w.Names = append(w.Names, sc.text.WatchedNodes()...)
	case "events":
		reasons := cl.EventReasons
		if len(reasons) == 0 && len(w.Fields) == 0 {
			reasons = []string{observe.FailedSchedulingReason}
		}
		for _, reason := range reasons {
			w.Fields = append(w.Fields, fields.OneTermEqualSelector("reason", reason).String())
		}
	}
	if len(w.Names) > 0 && r.Namespaced && spelling != "namespaces" {
		sc.problem(spelling, "labkit.names_namespaced", "resource", spelling)
	}
	for _, f := range w.Fields {
		if _, err := fields.ParseSelector(f); err != nil {
			sc.problem(f, "labkit.bad_selector", "selector", f, "err", err)
		}
	}
	if _, err := labels.Parse(w.Labels); err != nil {
		sc.problem(w.Labels, "labkit.bad_selector", "selector", w.Labels, "err", err)
	}
	return w
}

// requireWatched refuses a selector for a resource the lab does not watch.
func (sc *scopeCompiler) requireWatched(spelling string) {
	if !slices.Contains(sc.text.Cluster.Watch, spelling) {
		sc.problem(spelling, "labkit.select_unwatched", "resource", spelling)
	}
}

// problem places an authoring error at the first line of [cluster] that
// holds needle.
func (sc *scopeCompiler) problem(needle, key string, kv ...any) {
	line, col := clusterLine(sc.raw, needle)
	sc.probs = append(sc.probs, faultAt(path.Join(sc.text.Where, "lab.toml"), content.Span{Line: line, Col: col}, key, kv...))
}

// clusterLine finds needle, quoted, in the [cluster] tables of lab.toml.
func clusterLine(raw []byte, needle string) (int, int) {
	in := false
	for i, l := range bytes.Split(raw, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if bytes.HasPrefix(t, []byte("[")) {
			in = bytes.HasPrefix(t, []byte("[cluster"))
		}
		if !in {
			continue
		}
		if j := bytes.Index(l, []byte(`"`+needle+`"`)); j >= 0 {
			return i + 1, j + 1
		}
	}
	return 0, 0
}

// readCRDs reads the lab's crds/*.yaml.
func readCRDs(text *content.Lab) ([]cluster.Resource, []*fault) {
	names, _ := fs.Glob(text.FS, CRDDir+"/*.yaml")
	var out []cluster.Resource
	var probs []*fault
	for _, name := range names {
		raw, err := text.ReadFile(name)
		if err == nil {
			var r cluster.Resource
			if r, err = cluster.ParseCRD(raw); err == nil {
				out = append(out, r)
				continue
			}
		}
		probs = append(probs, faultAt(path.Join(text.Where, name), content.Span{}, "labkit.bad_crd", "err", err))
	}
	return out, probs
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Wipe are the cluster-scoped resources the lab watches whose objects a
// learner creates (not its nodes, not namespaces): resetting a sandbox to
// the lab's start deletes every object of them.
func (l *Lab) Wipe() []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for _, w := range l.Scope.Watches {
		if r := w.Resource; !r.Namespaced && r.String() != "nodes" && r.String() != "namespaces" {
			out = append(out, r.GVR())
		}
	}
	return out
}
