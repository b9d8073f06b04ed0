package classcmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/kube/kubefake"
	"github.com/labhub/labmate/state"
)

// handFactory is learner-01's machine: a class file whose connection is
// cs (namespace workshop), the lab named, the root and state directory
// the test's.
func handFactory(t *testing.T, cs *kubefake.Clientset) (*clitest.TestFactory, []string, string) {
	t.Helper()
	tf := clitest.NewTestFactory(t).WithConn(kubefake.NewConn(cs, nil).WithOrigin(kube.Origin{Namespace: "workshop", User: "learner-01"}))
	root, stateDir := t.TempDir(), t.TempDir()
	return tf, []string{"--class", "learner-01.yaml", "--lab", "gpu-incident", "--root", root, "--state-dir", stateDir}, root
}

// stuckOnTwo is learner-01's published record: step 1 passed, stuck on 2.
func stuckOnTwo(t *testing.T) *kubefake.Clientset {
	t.Helper()
	cm := record(t, "workshop", "learner-01", "gpu-incident")
	r, err := class.Unmarshal([]byte(cm.Data[class.DataKey]))
	if err != nil {
		t.Fatal(err)
	}
	r.Steps = append(r.Steps, class.StepRecord{Number: 2, Status: checks.Failed, Since: r.Updated,
		Failing: []class.FailingCheck{{ID: "runtime-name", Status: checks.Failed}}})
	raw, err := class.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	cm.Data[class.DataKey] = string(raw)
	return kubefake.New(cm)
}

func storedHand(t *testing.T, cs *kubefake.Clientset) *class.Hand {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps("workshop").Get(t.Context(), class.ObjectName("learner-01", "gpu-incident"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := class.Unmarshal([]byte(cm.Data[class.DataKey]))
	if err != nil {
		t.Fatal(err)
	}
	return r.Hand
}

// `class hand` raises the hand on the step the class has the learner
// on, with the words after it as the note, in the record and in the
// progress file (where a running labmate picks it up); `--down` lowers
// it in both.
func TestHandRaisesAndLowers(t *testing.T) {
	cs := stuckOnTwo(t)
	tf, args, root := handFactory(t, cs)
	code, out, errOut := tf.Run(NewCmd, append([]string{"hand"}, append(args, "포트가", "안 맞아요")...)...)
	if code != cli.ExitOK || !strings.Contains(out, "2단계에서 손을 들었습니다") || !strings.Contains(out, "--down --class learner-01.yaml") {
		t.Fatalf("class hand: exit %d\n%s%s", code, out, errOut)
	}
	h := storedHand(t, cs)
	if h == nil || h.Step != 2 || h.Note != "포트가 안 맞아요" || len(h.Checks) != 1 || h.Checks[0].ID != "runtime-name" {
		t.Fatalf("hand in the record: %+v", h)
	}
	act := progressHand(t, args, root)
	if act == nil || !act.Up || act.Step != 2 || act.Note != "포트가 안 맞아요" || !act.At.Truncate(time.Second).Equal(h.Raised) {
		t.Fatalf("hand in the progress file %+v, want the record's %+v", act, h)
	}

	code, out, errOut = tf.Run(NewCmd, append([]string{"hand", "--down"}, args...)...)
	if code != cli.ExitOK || !strings.Contains(out, "손을 내렸습니다") {
		t.Fatalf("class hand --down: exit %d\n%s%s", code, out, errOut)
	}
	if h := storedHand(t, cs); h != nil {
		t.Errorf("hand still up in the record: %+v", h)
	}
	if act := progressHand(t, args, root); act == nil || act.Up {
		t.Errorf("the progress file's hand after --down: %+v", act)
	}
}

// progressHand is the hand act in the learner's progress file.
func progressHand(t *testing.T, args []string, _ string) *state.HandAct {
	t.Helper()
	stateDir := args[len(args)-1]
	matches, _ := filepath.Glob(filepath.Join(stateDir, "*", "*", "state.json"))
	for _, p := range matches {
		st := &state.Store{Path: p}
		if f, err := st.Load(); err == nil && f.Progress.Hand != nil {
			return f.Progress.Hand
		}
	}
	return nil
}

// Refusals, in Korean, each worded as the class's other commands word
// theirs, and nothing kept: no class file (exit 2), a note on a
// lowering (exit 2), a class that does not answer (exit 1), a learner
// who never published (exit 1).
func TestHandRefuses(t *testing.T) {
	cs := stuckOnTwo(t)
	tf, args, root := handFactory(t, cs)
	if code, _, errOut := tf.Run(NewCmd, "hand", "--lab", "gpu-incident", "--root", root); code != cli.ExitUsage || !strings.Contains(errOut, "--class 가 필요합니다") {
		t.Errorf("no class: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := tf.Run(NewCmd, append([]string{"hand", "--down", "메모"}, args...)...); code != cli.ExitUsage || !strings.Contains(errOut, "--down 에는 메모를") {
		t.Errorf("a note on --down: exit %d\n%s", code, errOut)
	}

	down := stuckOnTwo(t)
	down.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("down")
	})
	tf, args, root = handFactory(t, down)
	code, _, errOut := tf.Run(NewCmd, append([]string{"hand"}, args...)...)
	if code != cli.ExitFail || !strings.Contains(errOut, "교실 클러스터에 손을 올리지 못했습니다") || strings.Contains(errOut, "ServiceUnavailable") {
		t.Errorf("a class that does not answer: exit %d\n%s", code, errOut)
	}
	if act := progressHand(t, args, root); act != nil {
		t.Errorf("a refused hand was kept: %+v", act)
	}

	never := kubefake.New(record(t, "workshop", "learner-01", "gpu-incident"))
	cm, _ := never.CoreV1().ConfigMaps("workshop").Get(t.Context(), class.ObjectName("learner-01", "gpu-incident"), metav1.GetOptions{})
	cm.Data = nil
	if _, err := never.CoreV1().ConfigMaps("workshop").Update(t.Context(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	tf, args, _ = handFactory(t, never)
	code, _, errOut = tf.Run(NewCmd, append([]string{"hand"}, args...)...)
	if code != cli.ExitFail || !strings.Contains(errOut, "교실에 아직 내 진행 상황이 없어") {
		t.Errorf("never published: exit %d\n%s", code, errOut)
	}
}
