package verify

import (
	"strings"
	"testing"
)

const solveScript = `kubectl get namespace ml-train >/dev/null 2>&1 || kubectl create namespace ml-train
until kubectl -n ml-train get serviceaccount default >/dev/null 2>&1; do sleep 0.2; done
kubectl apply -f k8s/trainer-a.yaml
kubectl -n ml-train wait pod/trainer-a --for=jsonpath='{.status.phase}'=Running --timeout=60s
kubectl label node gpu-node-0 gpu.example.com/driver-version-
echo done > out/log.txt
cat out/log.txt
`

// Each command that changes something is left out once; commands that
// only read never are.
func TestDropEditsLeaveOutWhatChanges(t *testing.T) {
	es, err := dropEdits(solveScript)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.command)
		if strings.Contains(e.script, e.command) {
			t.Errorf("dropping %q left it in:\n%s", e.command, e.script)
		}
	}
	want := []string{
		"kubectl get namespace ml-train >/dev/null 2>&1 || kubectl create namespace ml-train",
		"kubectl apply -f k8s/trainer-a.yaml",
		"kubectl label node gpu-node-0 gpu.example.com/driver-version-",
		"echo done >out/log.txt",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("dropped\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPointAtRewritesTheAppliedFile(t *testing.T) {
	out, ok, err := pointAt(solveScript, "k8s/trainer-a.yaml", "/tmp/mutant/trainer-a.yaml")
	if err != nil || !ok || !strings.Contains(out, "kubectl apply -f /tmp/mutant/trainer-a.yaml") || strings.Contains(out, "k8s/trainer-a.yaml") {
		t.Fatalf("%v %v\n%s", ok, err, out)
	}
	if _, ok, _ := pointAt(solveScript, "k8s/other.yaml", "/x"); ok {
		t.Fatal("a file the script does not name was found")
	}
}

// A helper function of the script that only reads makes a loop over it
// read-only too.
func TestReadOnlyHelpersAreNotDropped(t *testing.T) {
	src := `dsq() {
  kubectl -n gpu-operator get ds toolkit -o jsonpath="{$1}"
}
kubectl apply -f k8s/ds.yaml
until [ "$(dsq .status.numberReady)" = 2 ]; do sleep 0.2; done
`
	es, err := dropEdits(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].command != "kubectl apply -f k8s/ds.yaml" {
		t.Fatalf("dropped %+v", es)
	}
}
