package classcmd

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/kube/kubefake"
)

// record is a class record object of learner on lab, as a learner's
// labmate writes it: step 1 passed.
func record(t *testing.T, ns, learner, lab string) *corev1.ConfigMap {
	t.Helper()
	r := class.NewRecord(class.Identity{Learner: learner, Name: learner, Lab: lab, Labmate: "test"})
	now := time.Now().UTC().Truncate(time.Second)
	r.Updated, r.Current, r.CurrentSince = now, 2, now
	r.Steps = []class.StepRecord{{Number: 1, Status: checks.Passed, Since: now, Arrived: now, FirstPassed: now}}
	raw, err := class.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: class.ObjectName(learner, lab), Namespace: ns, Labels: map[string]string{
			class.LabelRecord: "true", class.LabelLearner: learner, class.LabelLab: lab}},
		Data: map[string]string{class.DataKey: string(raw)},
	}
}

// The instructor's connection is the factory's, made from the root's
// --kubeconfig and --context with the class's own limits; the root's
// --lab is the export's lab; -n the namespace. The export is the
// class's records as JSON.
func TestExportThroughTheFactorysConnection(t *testing.T) {
	cs := kubefake.New(record(t, "workshop", "learner-01", "gpu-incident"), record(t, "workshop", "learner-02", "driver-reboot"))
	tf := clitest.NewTestFactory(t).WithConn(kubefake.NewConn(cs, nil))
	code, out, errOut := tf.Run(NewCmd, "export", "--kubeconfig", "teacher.yaml", "--context", "teacher", "-n", "workshop", "--lab", "gpu-incident")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var e class.Export
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("not the export's JSON: %v\n%s", err, out)
	}
	if len(e.Learners) != 1 || e.Learners[0].Learner != "learner-01" || e.Learners[0].Lab != "gpu-incident" {
		t.Errorf("export %+v, want learner-01's gpu-incident record", e)
	}
	opened := tf.Opened()
	if len(opened) != 1 || opened[0].Path != "teacher.yaml" || opened[0].Context != "teacher" || opened[0].QPS != 100 {
		t.Errorf("connections opened: %+v, want the root's --kubeconfig and --context once, with the class's limits", opened)
	}
}

// A kubeconfig that cannot be used is the instructor's to fix: said in
// Korean, exit 2, before anything is read.
func TestExportWithoutAKubeconfig(t *testing.T) {
	code, out, errOut := clitest.NewTestFactory(t).Run(NewCmd, "export", "-n", "workshop")
	if code != cli.ExitUsage || out != "" || !strings.Contains(errOut, "kubeconfig") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}
