package e2e

// Helpers of the learner's walk (walk_test.go) and the benchmark
// (bench_test.go): building and asking the real `labmate check --json`, and
// node status patches. The file and cluster actions themselves are
// the reference walk's (refWalk in reference_record_test.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// buildLabmate builds the real binary once per test.
func buildLabmate(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "labmate")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/labmate")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./cmd/labmate: %v\n%s", err, out)
	}
	return bin
}

// restoreNode puts a node's capacity and allocatable back to the
// GPU lab's topology (no GPUs).
func restoreNode(ctx context.Context, tb testing.TB, cs kubernetes.Interface, name string) {
	tb.Helper()
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	var want corev1.NodeStatus
	for _, spec := range sandboxtest.Options().Nodes {
		if spec.Name == name {
			want = sandbox.Node(spec).Status
		}
	}
	if reflect.DeepEqual(n.Status.Capacity, want.Capacity) && reflect.DeepEqual(n.Status.Allocatable, want.Allocatable) {
		return
	}
	n.Status.Capacity, n.Status.Allocatable = want.Capacity, want.Allocatable
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		tb.Fatal(err)
	}
}

// patchNodeGPU is `kubectl patch node NAME --subresource=status --type=merge`
// setting nvidia.com/gpu in capacity and allocatable.
func patchNodeGPU(ctx context.Context, cs kubernetes.Interface, name, amount string) error {
	body := fmt.Sprintf(`{"status":{"capacity":{"nvidia.com/gpu":%q},"allocatable":{"nvidia.com/gpu":%q}}}`, amount, amount)
	_, err := cs.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{}, "status")
	return err
}

// learner walks the lab as a learner would: the reference walk's file and
// cluster actions (refWalk: writing files, doing with client-go what the
// step texts do with kubectl, waiting as `kubectl get -w` would), but the
// verdicts come from the real `labmate check --json` binary, asked after
// every action.
type learner struct {
	*refWalk
	bin        string
	stateDir   string
	kubeconfig string
	kubeCtx    string
	asked      int // how many times labmate was asked
}

// answer returns a reference answer from content/labs/gpu-incident/reference.
func (l *learner) answer(rel string) string {
	l.t.Helper()
	b, err := os.ReadFile(filepath.Join(l.answers, filepath.FromSlash(rel)))
	if err != nil {
		l.t.Fatal(err)
	}
	return string(b)
}

// ask runs `labmate check --json` and returns its report; refWalk.until
// shows the latest one when a wait times out.
func (l *learner) ask() engine.Report {
	l.t.Helper()
	l.asked++
	cmd := exec.CommandContext(l.ctx, l.bin, "check", "--json", "--root", l.root, "--state-dir", l.stateDir,
		"--kubeconfig", l.kubeconfig, "--context", l.kubeCtx, "--timeout", "30s")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		l.t.Fatalf("labmate check: %v\n%s", err, stderr.String())
	}
	var rep engine.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		l.t.Fatalf("labmate check --json: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if stderr.Len() > 0 {
		l.t.Errorf("labmate check wrote to stderr: %s", stderr.String())
	}
	l.last = rep
	return rep
}

// assertOthers requires every step before n to be green and none after.
func (l *learner) assertOthers(rep engine.Report, n int, when string) {
	l.t.Helper()
	for _, s := range rep.Steps {
		if s.Number < n && s.Status != checks.Passed {
			l.t.Errorf("%s: earlier step %d is %s: %s", when, s.Number, s.Status, failingChecks(s))
		}
		if s.Number > n && s.Status == checks.Passed {
			l.t.Errorf("%s: later step %d is already green", when, s.Number)
		}
	}
}

// notYet asserts step n is not green before its last action, and every
// earlier step still is.
func (l *learner) notYet(n int, when string) engine.Report {
	l.t.Helper()
	rep := l.ask()
	if s := rep.Step(n); s == nil || s.Status == checks.Passed {
		l.t.Errorf("%s: step %d is green before its last action", when, n)
	}
	l.assertOthers(rep, n, when)
	return rep
}

// green asks labmate until step n turns green (the cluster may still be
// converging), then requires every earlier step to be green too.
func (l *learner) green(n int) {
	l.t.Helper()
	l.until(fmt.Sprintf("labmate to show step %d green", n), func() bool {
		rep := l.ask()
		s := rep.Step(n)
		return s != nil && s.Status == checks.Passed
	})
	l.assertOthers(l.last, n, fmt.Sprintf("after step %d", n))
	l.t.Logf("step %d green after %d runs of labmate check", n, l.asked)
}

// wrongTurn asks labmate until check id of step n fails with a message
// naming every word, and requires the earlier steps to stay green.
func (l *learner) wrongTurn(n int, id string, words ...string) {
	l.t.Helper()
	l.until(fmt.Sprintf("%s to fail naming %q", id, words), func() bool {
		rep := l.ask()
		s := rep.Step(n)
		if s == nil {
			return false
		}
		r := resultOf(s.Checks, id)
		if r.Status != checks.Failed {
			return false
		}
		for _, w := range words {
			if !strings.Contains(r.Message, w) {
				return false
			}
		}
		return true
	})
	if l.last.Step(n).Status == checks.Passed {
		l.t.Errorf("step %d is green with %s failing", n, id)
	}
	l.assertOthers(l.last, n, "wrong turn "+id)
}

func resultOf(rs []checks.Result, id string) checks.Result {
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	return checks.Result{ID: id, Status: "absent"}
}

func failingChecks(s engine.StepResult) string {
	var out []string
	for _, r := range s.Checks {
		if r.Status != checks.Passed {
			out = append(out, r.ID+"="+string(r.Status)+": "+r.Message)
		}
	}
	return strings.Join(out, " | ")
}
