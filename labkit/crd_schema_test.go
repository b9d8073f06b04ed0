package labkit

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/labmate/checks"
)

// gadgetYAML is crd-demo's Gadget g1 with spec's lines after "spec:"
// (line 5).
func gadgetYAML(spec string) string {
	return "apiVersion: labmate.example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n" + spec
}

// A manifest check of a custom resource reads the file as the API server
// reads the kind: through the schema the lab's crds/ give it. Each value
// the server would refuse (or prune) fails with its field and line in
// Korean; a value the schema allows reaches the rules.
func TestManifestOfCustomResource(t *testing.T) {
	for _, c := range []struct {
		name, spec string
		status     checks.Status
		words      []string
	}{
		{"valid", "  size: 3\n  colour: red\n  labels: {team: a}\n  extra: {anything: [1, 2]}\n", checks.Passed, nil},
		{"rule", "  size: 2\n", checks.Failed, []string{"spec.size 가 3"}},
		{"type", "  size: three\n", checks.Failed, []string{"spec.size (6번째 줄)", "문자열", "정수", "k8s/gadget.yaml:6"}},
		{"minimum", "  size: 0\n", checks.Failed, []string{"spec.size (6번째 줄)의 0 은 너무 작습니다: 1 이상"}},
		{"enum", "  size: 3\n  colour: blue\n", checks.Failed, []string{"spec.colour (7번째 줄)", `"red", "green" 중 하나`}},
		{"required", "  colour: red\n", checks.Failed, []string{"spec.size 가 없습니다"}},
		{"unknown", "  size: 3\n  bogus: 1\n", checks.Failed, []string{"Gadget 에 없는 필드", "spec.bogus (7번째 줄)"}},
		{"additional", "  size: 3\n  labels: {team: 1}\n", checks.Failed, []string{"spec.labels.team", "정수", "문자열"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := demoOf(t, "testdata/crd-demo")
			d.file("k8s/gadget.yaml", gadgetYAML(c.spec), 0o644)
			expect(t, d.eval(1), "gadget.file", c.status, c.words...)
		})
	}
	d := demoOf(t, "testdata/crd-demo")
	d.file("k8s/gadget.yaml", strings.Replace(gadgetYAML("  size: 3\n"), "  name: g1\n", "  name: g1\n  bogus: x\n", 1), 0o644)
	expect(t, d.eval(1), "gadget.file", checks.Failed, "metadata.bogus (5번째 줄)")
}

// An object check's file of a custom resource decodes through the same
// schema and compares with the live object, numbers as the API server
// gives them (integers, not doubles).
func TestObjectFileOfCustomResource(t *testing.T) {
	d := demoOf(t, "testdata/crd-demo")
	d.put("Gadget", &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "labmate.example.com/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g1"},
		"spec":     map[string]any{"size": int64(3)},
	}})
	d.file("k8s/gadget.yaml", gadgetYAML("  size: three\n"), 0o644)
	expect(t, d.eval(1), "gadget.live", checks.Waiting, "spec.size (6번째 줄)")
	d.file("k8s/gadget.yaml", gadgetYAML("  size: 4\n"), 0o644)
	expect(t, d.eval(1), "gadget.live", checks.Failed, "파일과 다릅니다", "클러스터의 가젯 spec 이 파일과 같음")
	d.file("k8s/gadget.yaml", gadgetYAML("  size: 3\n"), 0o644)
	expect(t, d.eval(1), "gadget.live", checks.Passed)
}

// A custom resource kind labmate cannot read as the server does (no
// schema for the version, or no CRD at all) is refused when the lab
// loads, at the line that names it, in Korean.
func TestCustomKindWithoutSchemaIsRefused(t *testing.T) {
	open := func(t *testing.T, file string, edit func(string) string) *Lab {
		t.Helper()
		return openEditedCopy(t, "testdata/crd-demo", file, edit)
	}
	at := func(t *testing.T, lab *Lab, what string, line int) {
		t.Helper()
		if p := problemOf(t, lab, what); p.Line != line {
			t.Errorf("%q is placed at line %d, want %d: %v", what, p.Line, line, p)
		}
	}
	t.Run("manifest of a version without a schema", func(t *testing.T) {
		lab := open(t, "lab.toml", func(s string) string {
			return strings.Replace(s, `api_version = "labmate.example.com/v1"`, `api_version = "labmate.example.com/v1alpha1"`, 1)
		})
		at(t, lab, "스키마(openAPIV3Schema)를 주지 않아", 22)
	})
	t.Run("manifest of a kind no CRD defines", func(t *testing.T) {
		lab := open(t, "lab.toml", func(s string) string {
			return strings.Replace(s, `api_version = "labmate.example.com/v1"`, `api_version = "labmate.example.com/v2"`, 1)
		})
		at(t, lab, "crds/ 가 정의하는 종류도 아닙니다", 22)
	})
	t.Run("object file of a watched version without a schema", func(t *testing.T) {
		lab := open(t, "crds/gadgets.labmate.example.com.yaml", func(s string) string {
			s = strings.Replace(s, "storage: true", "storage: TRUE", 1)
			s = strings.Replace(s, "storage: false", "storage: true", 1)
			return strings.Replace(s, "storage: TRUE", "storage: false", 1)
		})
		at(t, lab, "labmate.example.com/v1alpha1 Gadget 에는", 38)
	})
}
