// Package testfiles writes what tests lay out on disk: a directory from
// a map of its files (a lab, a lab's next version), and the YAML of a
// CustomResourceDefinition for a lab's crds/.
package testfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir writes files (a slash-separated path in the directory to its text)
// into a new temporary directory and returns it.
func Dir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// CRD is the YAML of a CustomResourceDefinition of kind in group (its
// resource plural), served and stored at v1, namespaced or cluster-wide.
// specProperties is the YAML of its spec's properties, one per line (as
// "size: {type: integer}"); with none its spec keeps whatever it is given.
func CRD(group, kind, plural string, namespaced bool, specProperties ...string) string {
	scope := "Cluster"
	if namespaced {
		scope = "Namespaced"
	}
	spec := "            x-kubernetes-preserve-unknown-fields: true\n"
	if len(specProperties) > 0 {
		spec = "            properties:\n"
		for _, p := range specProperties {
			spec += "              " + p + "\n"
		}
	}
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + "." + group + `
spec:
  group: ` + group + `
  names: {plural: ` + plural + `, singular: ` + strings.ToLower(kind) + `, kind: ` + kind + `, listKind: ` + kind + `List}
  scope: ` + scope + `
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
` + spec
}
