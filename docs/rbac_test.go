package docs

import (
	"os"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/observe/cluster"
)

const (
	rbacStart = "<!-- generated: labmate lab rbac gpu-incident --serviceaccount default:labmate -->\n```yaml\n"
	rbacEnd   = "```\n<!-- end generated -->"
)

// TestSandboxRBACIsGenerated: the ready-made role in SANDBOX.md is what
// `labmate lab rbac gpu-incident --serviceaccount default:labmate` prints
// (the roles derived from the lab's declared watches). With -update it is
// rewritten.
func TestSandboxRBACIsGenerated(t *testing.T) {
	kit, err := labkit.Open("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	want, err := cluster.YAML(cluster.RBAC(kit.Scope, kit.ID(), cluster.Subject{Kind: rbacv1.ServiceAccountKind, Name: "labmate", Namespace: "default"}))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("SANDBOX.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start, end := strings.Index(doc, rbacStart), strings.Index(doc, rbacEnd)
	if start < 0 || end < start {
		t.Fatalf("SANDBOX.md has no generated RBAC section (%q ... %q)", rbacStart, rbacEnd)
	}
	if doc[start+len(rbacStart):end] == want {
		return
	}
	if *update {
		if err := os.WriteFile("SANDBOX.md", []byte(doc[:start+len(rbacStart)]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("SANDBOX.md's ready-made role drifted from labmate lab rbac gpu-incident; run go test ./docs -run SandboxRBAC -update")
}
