package resetcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/state"
)

// The command tests work on the GPU incident lab unless they say
// otherwise.
func TestMain(m *testing.M) { clitest.Main(m, "gpu-incident") }

// seeded returns a lab root with a learner's file in it and a state
// with progress and witnessed facts for steps 3 and 5.
func seeded(t *testing.T) (root, stateDir string, st *state.Store) {
	t.Helper()
	root, stateDir = t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "out"), 0o755)
	os.WriteFile(filepath.Join(root, "out", "merge.txt"), []byte("MAIN_RUNTIMES=runc\n"), 0o644)
	st = clitest.Store(t, stateDir, "gpu-incident", root)
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	st.Record(state.Event{Kind: state.StepPassed, Step: 3, At: at}, state.Event{Kind: state.HintOpened, Step: 3, Hint: 2, At: at},
		state.Event{Kind: state.StepPassed, Step: 5, At: at}, state.Event{Kind: state.SolutionOpened, Step: 5, At: at},
		state.Event{Kind: state.Visited, Step: 5, At: at})
	st.Update(func(f *state.File) {
		f.Witness.Set("runtimeclass-pending/unschedulable", checks.WitnessFact{Value: "0/3 nodes are available"})
		f.Witness.Set("rollout-stall/old-ready", checks.WitnessFact{Value: "3"})
	})
	return root, stateDir, st
}

// runSaying runs `labmate reset ARGS...`, the learner answering its
// question with says ("": no answer at all, as a closed stdin).
func runSaying(t *testing.T, says string, args ...string) (int, string, string) {
	t.Helper()
	tf := clitest.NewTestFactory(t)
	tf.Prompter.Says = says
	return tf.Run(NewCmd, args...)
}

func learnerFileIntact(t *testing.T, root string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "out", "merge.txt"))
	if err != nil || string(raw) != "MAIN_RUNTIMES=runc\n" {
		t.Errorf("the learner's file was touched: %q %v", raw, err)
	}
}

func TestResetOneStepAfterYes(t *testing.T) {
	root, stateDir, st := seeded(t)
	tf := clitest.NewTestFactory(t)
	tf.Prompter.Says = "y"
	code, out, errOut := tf.Run(NewCmd, "--step", "5", "--root", root, "--state-dir", stateDir)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"5단계", "통과 기록 1개", "풀이 1개", "사실 1개", "지웠습니다"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if q := tf.Prompter.Questions; len(q) != 1 || !strings.HasSuffix(q[0], "[y/N] ") {
		t.Errorf("asked %q, want one y/N question", q)
	}
	f, _ := st.Load()
	if _, ok := f.Progress.PassedAt[5]; ok || f.Progress.SolutionSeen[5] {
		t.Errorf("step 5 progress kept: %+v", f.Progress)
	}
	if _, ok := f.Witness.Get("runtimeclass-pending/unschedulable"); ok {
		t.Error("step 5's witnessed fact kept")
	}
	if _, ok := f.Progress.PassedAt[3]; !ok || f.Progress.HintsSeen[3] != 2 {
		t.Errorf("step 3 progress lost: %+v", f.Progress)
	}
	if _, ok := f.Witness.Get("rollout-stall/old-ready"); !ok {
		t.Error("step 8's witnessed fact lost")
	}
	learnerFileIntact(t, root)
}

func TestResetDeclined(t *testing.T) {
	for _, answer := range []string{" ", "n", "아니요", "yess"} { // " ": enter alone
		root, stateDir, st := seeded(t)
		before, _ := st.Load()
		code, out, _ := runSaying(t, answer, "--root", root, "--state-dir", stateDir)
		if code != cli.ExitFail || !strings.Contains(out, "지우지 않았습니다") {
			t.Errorf("answer %q: exit %d\n%s", answer, code, out)
		}
		after, _ := st.Load()
		if len(after.Progress.PassedAt) != len(before.Progress.PassedAt) || len(after.Witness.Facts) != 2 {
			t.Errorf("answer %q cleared something: %+v", answer, after)
		}
	}
}

func TestResetWithoutInputNeedsYes(t *testing.T) {
	root, stateDir, st := seeded(t)
	code, _, errOut := runSaying(t, "", "--root", root, "--state-dir", stateDir)
	if code != cli.ExitFail || !strings.Contains(errOut, "--yes") {
		t.Errorf("closed stdin: exit %d, stderr %q", code, errOut)
	}
	if f, _ := st.Load(); len(f.Progress.PassedAt) != 2 {
		t.Error("cleared without a confirmation")
	}
}

func TestResetAllWithYesFlag(t *testing.T) {
	root, stateDir, st := seeded(t)
	code, out, errOut := runSaying(t, "", "--yes", "--root", root, "--state-dir", stateDir)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "[y/N]") {
		t.Error("asked although --yes was given")
	}
	for _, want := range []string{"통과 기록 2개", "힌트 2개", "풀이 1개", "사실 2개"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	f, _ := st.Load()
	if len(f.Progress.PassedAt) != 0 || len(f.Witness.Facts) != 0 || f.Progress.CurrentStep != 0 {
		t.Errorf("after reset: %+v", f)
	}
	learnerFileIntact(t, root)
	// Nothing left: said so, exit 0, no question.
	code, out, _ = runSaying(t, "", "--root", root, "--state-dir", stateDir)
	if code != cli.ExitOK || !strings.Contains(out, "지울 진행 기록이 없습니다") {
		t.Errorf("second reset: exit %d\n%s", code, out)
	}
}

func TestResetBadStep(t *testing.T) {
	code, _, errOut := runSaying(t, "y", "--step", "9", "--root", t.TempDir(), "--state-dir", t.TempDir())
	if code != cli.ExitUsage || !strings.Contains(errOut, "9") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// A damaged state file is set aside (and said so), not silently dropped;
// reset then has nothing to clear.
func TestResetDamagedStateFile(t *testing.T) {
	root, stateDir := t.TempDir(), t.TempDir()
	st := clitest.Store(t, stateDir, "gpu-incident", root)
	os.MkdirAll(filepath.Dir(st.Path), 0o700)
	os.WriteFile(st.Path, []byte("{not json"), 0o600)
	code, out, errOut := runSaying(t, "", "--root", root, "--state-dir", stateDir)
	if code != cli.ExitOK || !strings.Contains(errOut, "손상") || !strings.Contains(out, "없습니다") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if m, _ := filepath.Glob(st.Path + ".damaged-*"); len(m) != 1 {
		t.Errorf("damaged file not kept aside: %v", m)
	}
}

// reset forgets progress and opens nothing else: no run, so a malformed
// kubeconfig is no error and no start file is laid out in the root.
func TestResetOpensOnlyTheState(t *testing.T) {
	t.Run("malformed kubeconfig", func(t *testing.T) {
		root, stateDir, st := seeded(t)
		kubeconfig := filepath.Join(t.TempDir(), "config")
		os.WriteFile(kubeconfig, []byte("{not: [a kubeconfig"), 0o600)
		code, out, errOut := runSaying(t, "", "--yes", "--root", root, "--state-dir", stateDir, "--kubeconfig", kubeconfig)
		if code != cli.ExitOK || !strings.Contains(out, "지웠습니다") {
			t.Fatalf("reset with a malformed kubeconfig: exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		if f, _ := st.Load(); len(f.Progress.PassedAt) != 0 {
			t.Errorf("progress kept: %+v", f.Progress)
		}
	})
	t.Run("start files", func(t *testing.T) {

		files := labkittest.VersionedFileLab("1.0.0", "")
		files["lab.toml"] = strings.Replace(files["lab.toml"], `intro = "intro.md"`, "intro = \"intro.md\"\nstart = \"start\"", 1)
		files["start/etc/site.toml"] = "[server]\n"
		dir, root := testfiles.Dir(t, files), t.TempDir()
		code, _, errOut := runSaying(t, "", "--yes", "--lab-dir", dir, "--root", root, "--state-dir", t.TempDir())
		if code != cli.ExitOK {
			t.Fatalf("reset --lab-dir: exit %d\n%s", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(root, "etc", "site.toml")); err == nil {
			t.Error("reset laid the lab's start files out in the root")
		}
	})
}
