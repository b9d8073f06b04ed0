package labkit

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/checks"
)

// BenchmarkEvaluateDemo evaluates both steps of the demo lab as the engine
// does on every file or watch event: two field checks read one TOML file,
// a manifest check and an object check with `file` read one manifest.
func BenchmarkEvaluateDemo(b *testing.B) {
	d := newDemo(b)
	d.file("bin/run.sh", "#!/bin/sh\n", 0o755)
	d.file("etc/app.toml", "[server]\nname = \"demo-7\"\n[server.\"listen.tcp\"]\nenabled = true\n", 0o644)
	d.file("etc/values.yaml", "spec:\n  replicas: 3\n", 0o644)
	d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "a", 1), 0o644)
	d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=2\nPHASE=Running\n", 0o644)
	d.put("Node", node("2"))
	d.put("Pod", pod("a", corev1.PodRunning, "u1"))
	snap := d.store.Snapshot()
	in := checks.Input{Lab: d.lab.Text, Snap: snap, Root: "/lab", Witness: &d.witness}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range d.lab.Steps {
			if s.Remember != nil {
				s.Remember(snap, &d.witness, true)
			}
			for _, r := range s.Eval(in).Checks {
				if r.Status != checks.Passed {
					b.Fatalf("%s: %s %s", r.ID, r.Status, r.Message)
				}
			}
		}
	}
}
