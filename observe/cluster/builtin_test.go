package cluster

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/labmate/sandbox/sandboxtest"
)

var update = flag.Bool("update", false, "rewrite builtin.json from the e2e sandbox's discovery")

// The table of Kubernetes' own resources is what the sandbox's API server
// serves: every resource it lets a client list and watch, at its
// preferred version. Run with -update (and LABMATE_E2E=1) after changing
// the sandbox's Kubernetes version.
func TestBuiltinTableMatchesTheSandbox(t *testing.T) {
	dc, err := sandboxtest.Conn(t).Discovery()
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	var served []Resource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "watch") {
				continue
			}
			served = append(served, Resource{Group: gv.Group, Version: gv.Version, Name: r.Name, Kind: r.Kind, Namespaced: r.Namespaced})
		}
	}
	sort.Slice(served, func(i, j int) bool { return served[i].String() < served[j].String() })
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, r := range served {
		line, _ := json.Marshal(r)
		b.Write(line)
		if i < len(served)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	if *update {
		if err := os.WriteFile("builtin.json", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(b.Bytes(), builtinJSON) {
		t.Fatalf("builtin.json differs from what the sandbox serves; run LABMATE_E2E=1 go test ./observe/cluster -run TestBuiltinTableMatchesTheSandbox -update and review the diff")
	}
}

// The table knows the resources the installed labs watch, by kubectl's
// spelling, with their kinds and scopes.
func TestTableLooksUpBuiltinResources(t *testing.T) {
	tb := Builtin()
	for spelling, want := range map[string]Resource{
		"pods":                              {Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true},
		"nodes":                             {Version: "v1", Name: "nodes", Kind: "Node"},
		"daemonsets.apps":                   {Group: "apps", Version: "v1", Name: "daemonsets", Kind: "DaemonSet", Namespaced: true},
		"runtimeclasses.node.k8s.io":        {Group: "node.k8s.io", Version: "v1", Name: "runtimeclasses", Kind: "RuntimeClass"},
		"priorityclasses.scheduling.k8s.io": {Group: "scheduling.k8s.io", Version: "v1", Name: "priorityclasses", Kind: "PriorityClass"},
	} {
		got, ok := tb.Lookup(spelling)
		if !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", spelling, got, ok, want)
		}
	}
	if _, ok := tb.Lookup("deploymnets.apps"); ok {
		t.Error("a misspelt resource was found")
	}
	if near := tb.Near("deploymnets.apps"); !slices.Contains(near, "deployments.apps") {
		t.Errorf("no suggestion for a misspelling: %v", near)
	}
}

func TestParseCRD(t *testing.T) {
	raw := []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget}
  scope: Cluster
  versions:
  - {name: v1alpha1, served: true, storage: false}
  - {name: v1, served: true, storage: true}
`)
	r, err := ParseCRD(raw)
	want := Resource{Group: "example.com", Version: "v1", Name: "widgets", Kind: "Widget"}
	if err != nil || r != want {
		t.Fatalf("%+v %v, want %+v", r, err, want)
	}
	tb := Builtin().With(r)
	if got, ok := tb.Lookup("widgets.example.com"); !ok || got != want {
		t.Fatalf("the custom resource is not in the table: %+v", got)
	}
	if _, err := ParseCRD([]byte("apiVersion: v1\nkind: ConfigMap\n")); err == nil {
		t.Fatal("a ConfigMap read as a CRD")
	}
}
