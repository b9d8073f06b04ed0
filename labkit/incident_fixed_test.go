package labkit_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/trace"
)

// The right end of the driver-reboot incident is relabelling the nodes:
// the driver is back, the replacement trainer-b runs. What steps 3-5
// proved (the reboot, naive landing without the label, a report that
// matched the cluster) must stay proved: none of them turns red.
func TestDriverRebootFixedIncidentKeepsTheReport(t *testing.T) {
	var lab *labkit.Lab
	for _, l := range labkittest.Installed(t) {
		if l.ID() == "driver-reboot" {
			lab = l
		}
	}
	if lab == nil {
		t.Fatal("driver-reboot is not installed")
	}
	tr, err := trace.ReferenceOf(lab.Text)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(engine.Config{Lab: lab.Text, Steps: lab.Steps, Root: tr.Header.Root})
	nodes := map[string]*corev1.Node{}
	var trainerB *corev1.Pod
	at := tr.Header.Started
	for _, r := range tr.Records {
		e.Apply(r.Obs)
		e.Evaluate() // the steps remember as the engine's loop makes them
		at = r.Obs.Time
		if o := r.Obs.Object; o != nil && o.Op == observe.OpUpsert {
			switch v := o.Object.(type) {
			case *corev1.Node:
				nodes[v.Name] = v
			case *corev1.Pod:
				if v.Name == "trainer-b" {
					trainerB = v
				}
			}
		}
	}
	before := e.Evaluate()
	for _, st := range before.Steps {
		if st.Status != checks.Passed {
			t.Fatalf("the reference run ends with step %d %s", st.Number, st.Status)
		}
	}
	if trainerB == nil || nodes["gpu-node-0"] == nil || nodes["gpu-node-1"] == nil {
		t.Fatal("the reference run shows no trainer-b or GPU nodes")
	}
	for _, name := range []string{"gpu-node-0", "gpu-node-1"} {
		n := nodes[name].DeepCopy()
		n.Labels["gpu.example.com/driver-version"] = "550.54.15"
		at = at.Add(time.Second)
		e.Apply(observe.Observation{Time: at, Object: &observe.ObjectObs{Op: observe.OpUpsert, Kind: "Node", Name: name, Object: n}})
	}
	b := trainerB.DeepCopy()
	b.Spec.NodeName = "gpu-node-0"
	b.Status.Phase = corev1.PodRunning
	b.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
	at = at.Add(time.Second)
	e.Apply(observe.Observation{Time: at, Object: &observe.ObjectObs{Op: observe.OpUpsert, Kind: "Pod", Namespace: b.Namespace, Name: b.Name, Object: b}})
	for _, st := range e.Evaluate().Steps {
		if st.Status != checks.Passed {
			for _, c := range st.Checks {
				if c.Status != checks.Passed {
					t.Errorf("after the fix, step %d %s is %s: %s", st.Number, c.ID, c.Status, c.Message)
				}
			}
		}
	}
}
