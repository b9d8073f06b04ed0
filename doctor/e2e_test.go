package doctor

import (
	"testing"

	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// Against the real lab cluster (LABMATE_E2E=1): every cluster finding is
// right, and doctor answers without waiting for anything that hangs.
func TestSandboxE2E(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	o := opts(t)
	connect(&o, kubeconfig, "")
	o.Labs[0].Access = []Access{{Verb: "watch", Resource: "pods", Namespace: "gpu-lab", Text: "watch pods in gpu-lab"}}
	r := within(t, o)
	expect(t, r, map[string]Verdict{"kubeconfig": OK, "apiserver": OK, "nodes": OK, "access": OK})
	if !r.OK() {
		t.Errorf("doctor against the sandbox: %+v", r.Findings)
	}
}
