package reportcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/report"
	"github.com/labhub/labmate/state"
)

// The command tests work on the GPU incident lab unless they say
// otherwise.
func TestMain(m *testing.M) { clitest.Main(m, "gpu-incident") }

// fixedClock makes report times and the local zone stable for goldens.
func fixedClock(t *testing.T, at time.Time) {
	t.Helper()
	oldNow, oldLocal := Now, time.Local
	Now = func() time.Time { return at }
	time.Local = time.UTC
	t.Cleanup(func() { Now, time.Local = oldNow, oldLocal })
}

// runCmd runs `labmate report ARGS...` on a test factory.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return clitest.Run(t, NewCmd, args...)
}

// The report of the reference answers, evaluated as `labmate report`
// does (files only; the cluster steps' golden comes with the reference
// trace, see package report). The wording of every check belongs to the
// checks, so instead of a golden of their text this asserts what the
// report itself promises: the markdown carries every step with its
// status, every observed value verbatim and every check's message, and
// the learner's progress joined to the right step.
func TestReportReferenceFiles(t *testing.T) {
	if labkittest.GPUSteps(t)[2].Eval == nil {
		t.Fatal("the file checks of step 3 are not registered")
	}
	root := labkittest.ReferenceRoot(t, "gpu-incident")
	stateDir := t.TempDir()
	fixedClock(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	clitest.Store(t, stateDir, "gpu-incident", root).Record(
		state.Event{Kind: state.HintOpened, Step: 3, Hint: 2, At: time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)},
		state.Event{Kind: state.SolutionOpened, Step: 4, At: time.Date(2026, 11, 30, 11, 5, 0, 0, time.UTC)})

	code, md, errOut := runCmd(t, "--root", root, "--no-cluster", "--state-dir", stateDir)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, js, errOut := runCmd(t, "--json", "--root", root, "--no-cluster", "--state-dir", stateDir)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		if st := r.Steps[n-1].Status; st != checks.Passed {
			t.Errorf("reference answer of step %d: %s", n, st)
		}
	}
	if s3 := r.Steps[2]; s3.Hints != 2 || s3.Solution || !r.Steps[3].Solution {
		t.Errorf("progress joined to the wrong steps: step 3 %+v, step 4 solution %v", s3, r.Steps[3].Solution)
	}
	if !strings.Contains(md, "- 시작 시각: 2026-11-30 11:00 UTC") || !strings.Contains(md, "- 작성 시각: 2026-11-30 12:00 UTC") {
		t.Errorf("times missing from the header:\n%s", md[:min(len(md), 600)])
	}
	// Two runs are two evaluations (script run times differ), so the
	// value-by-value comparison is against the JSON run's own rendering;
	// the command's markdown must have the same sections.
	rendered := r.Markdown(time.UTC)
	for _, st := range r.Steps {
		if !strings.Contains(md, fmt.Sprintf("### %d. %s\n", st.Number, st.Title)) {
			t.Errorf("no section for step %d in the command's markdown", st.Number)
		}
	}
	md = rendered
	var decided []string
	for _, st := range r.Steps {
		if !strings.Contains(md, fmt.Sprintf("### %d. %s\n", st.Number, st.Title)) {
			t.Errorf("no section for step %d", st.Number)
		}
		for _, f := range st.Observed {
			for _, line := range strings.Split(f.Value, "\n") {
				if !strings.Contains(md, line) {
					t.Errorf("step %d: observed %s = %q missing from the markdown", st.Number, f.Label, line)
				}
			}
			decided = append(decided, f.Label)
		}
		for _, c := range st.Checks {
			first, _, _ := strings.Cut(c.Message, "\n")
			if !strings.Contains(md, "] "+first) {
				t.Errorf("step %d: check %s's message missing: %q", st.Number, c.ID, first)
			}
		}
	}
	// The merge verdict is what step 3 decided on.
	for _, key := range []string{"MAIN_RUNTIMES", "DROPIN_RUNTIMES", "CONFLICT", "CONFLICT_TABLE", "LOADED_RUNTIMES"} {
		if !slices.Contains(decided, key) {
			t.Errorf("the report does not show %s among the observed values (%v)", key, decided)
		}
	}
}

func TestReportJSONToFile(t *testing.T) {
	root := labkittest.ReferenceRoot(t, "gpu-incident")
	stateDir := t.TempDir()
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	fixedClock(t, at)
	outFile := filepath.Join(t.TempDir(), "report.json")
	code, out, errOut := runCmd(t, "--json", "-o", outFile, "--root", root, "--no-cluster", "--state-dir", stateDir)
	if code != cli.ExitOK || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, outFile) {
		t.Errorf("no word about where the report went: %q", errOut)
	}
	raw, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if r.Total != 8 || r.Root != root || !r.Written.Equal(at) {
		t.Errorf("report = total %d root %s written %v", r.Total, r.Root, r.Written)
	}
	// Steps that passed now have a first-pass time, in the report and
	// in the state file (a command-line-only learner gets a timeline).
	f, _ := clitest.Store(t, stateDir, "gpu-incident", root).Load()
	for _, s := range r.Steps {
		_, recorded := f.Progress.PassedAt[s.Number]
		if (s.Status == checks.Passed) != recorded || (s.Status == checks.Passed) != !s.PassedAt.IsZero() {
			t.Errorf("step %d: status %s, passed_at %v, recorded %v", s.Number, s.Status, s.PassedAt, recorded)
		}
	}
}

func TestReportUnwritablePath(t *testing.T) {
	code, _, errOut := runCmd(t, "-o", filepath.Join(t.TempDir(), "no", "such", "dir", "r.md"),
		"--root", t.TempDir(), "--no-cluster", "--state-dir", t.TempDir())
	if code != cli.ExitUsage || !strings.Contains(errOut, "r.md") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// `labmate report --trace reference`: the built-in reference run, all
// eight steps passed, with the trace's own times; a bad trace is a usage
// error that names it.
func TestReportFromTrace(t *testing.T) {
	code, out, errOut := runCmd(t, "--trace", "reference", "--json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Total != 8 || r.Passed != 8 {
		t.Errorf("reference run: %d of %d passed", r.Passed, r.Total)
	}
	for _, s := range r.Steps {
		if s.PassedAt.IsZero() || s.PassedAt.Before(r.StartedAt) || s.PassedAt.After(r.Written) {
			t.Errorf("step %d passed at %v (trace %v..%v)", s.Number, s.PassedAt, r.StartedAt, r.Written)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("not a trace\n"), 0o644)
	code, _, errOut = runCmd(t, "--trace", bad)
	if code != cli.ExitUsage || !strings.Contains(errOut, "bad.jsonl") {
		t.Errorf("bad trace: exit %d, %q", code, errOut)
	}
}
