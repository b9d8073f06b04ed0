package testfiles_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/observe/cluster"
)

// A CRD of either scope reads as the resource it names, and its spec
// schema holds the properties given.
func TestCRD(t *testing.T) {
	for _, tc := range []struct {
		namespaced bool
		props      []string
	}{{true, nil}, {false, []string{"size: {type: integer}"}}} {
		raw := testfiles.CRD("labmate.example.com", "Gizmo", "gizmos", tc.namespaced, tc.props...)
		r, err := cluster.ParseCRD([]byte(raw))
		want := cluster.Resource{Group: "labmate.example.com", Version: "v1", Name: "gizmos", Kind: "Gizmo", Namespaced: tc.namespaced}
		if err != nil || r != want {
			t.Errorf("%+v %v, want %+v\n%s", r, err, want, raw)
		}
		if tc.props != nil && !strings.Contains(raw, "properties:\n              size: {type: integer}\n") {
			t.Errorf("the spec's properties are not under it:\n%s", raw)
		}
	}
}

func TestDir(t *testing.T) {
	dir := testfiles.Dir(t, map[string]string{"lab.toml": "id = \"x\"\n", "steps/01.md": "# 하나\n"})
	for rel, want := range map[string]string{"lab.toml": "id = \"x\"\n", "steps/01.md": "# 하나\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", rel, b, err)
		}
	}
}
