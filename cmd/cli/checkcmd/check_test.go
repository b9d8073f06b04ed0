package checkcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labstore"
	"github.com/labhub/labmate/state"
)

// The command tests work on the GPU incident lab unless they say
// otherwise, on a store of installed labs of their own.
func TestMain(m *testing.M) { clitest.Main(m, "gpu-incident") }

// run runs `labmate check ARGS...` on a test factory.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return clitest.Run(t, NewCmd, args...)
}

// checkJSON runs `labmate check ... --json` and decodes its output.
func checkJSON(t *testing.T, args ...string) (engine.Report, int, string) {
	t.Helper()
	code, out, errOut := run(t, append([]string{"--json", "--state-dir", t.TempDir()}, args...)...)
	var rep engine.Report
	if code != cli.ExitUsage {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("output is not the check JSON: %v\n%s", err, out)
		}
	}
	return rep, code, errOut
}

func TestCheckExitCodesAndShape(t *testing.T) {
	root := labkittest.ReferenceRoot(t, "gpu-incident", "etc/containerd/config.toml")

	rep, code, _ := checkJSON(t, "--root", root, "--no-cluster", "--step", "1")
	if code != cli.ExitOK || len(rep.Steps) != 1 || rep.Steps[0].Status != checks.Passed {
		t.Fatalf("step 1 with the reference config: exit %d, %+v", code, rep.Steps)
	}
	if rep.Lab != "gpu-incident" || rep.Steps[0].ID != "main-config" || rep.Steps[0].Number != 1 || rep.Steps[0].Title == "" {
		t.Fatalf("JSON shape: %+v", rep)
	}
	for _, c := range rep.Steps[0].Checks {
		if c.ID == "" || c.Status == "" || c.Message == "" {
			t.Fatalf("check without id/status/message: %+v", c)
		}
	}

	rep, code, _ = checkJSON(t, "--root", root, "--no-cluster", "--step", "2")
	if code != cli.ExitFail || rep.Steps[0].Status != checks.Failed {
		t.Fatalf("step 2 without its file: exit %d, %s", code, rep.Steps[0].Status)
	}

	rep, code, _ = checkJSON(t, "--root", root, "--no-cluster")
	if code != cli.ExitFail || len(rep.Steps) != 8 {
		t.Fatalf("all steps: exit %d, %d steps", code, len(rep.Steps))
	}
	// Without a cluster, the cluster steps never pass from nothing.
	for _, st := range rep.Steps[4:] {
		if st.Status == checks.Passed {
			t.Fatalf("step %d passed with no cluster", st.Number)
		}
	}
}

func TestCheckUsageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	// A FIFO where a trace should be must be refused, not block forever.
	fifo := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"--replay", fifo},
		{"--step", "9"},
		{"--step", "-1"},
		{"--root", file},
		{"--no-such-flag"},
		{"stray"},
		{"--replay", "reference", "--watch"},
		{"--replay", filepath.Join(t.TempDir(), "missing.jsonl")},
		{"--replay", filepath.Join("..", "..", "..", "trace", "testdata", "bad", "newer-version.jsonl")},
		{"--replay", filepath.Join("..", "..", "..", "trace", "testdata", "bad", "corrupt-middle.jsonl")},
		{"--kubeconfig", filepath.Join(t.TempDir(), "missing-kubeconfig")},
	}
	for _, args := range cases {
		_, code, stderr := checkJSON(t, args...)
		if code != cli.ExitUsage {
			t.Errorf("check %v: exit %d, want %d", args, code, cli.ExitUsage)
		}
		if strings.TrimSpace(stderr) == "" {
			t.Errorf("check %v: no message on stderr", args)
		}
	}
}

func TestCheckReplayReference(t *testing.T) {
	rep, code, _ := checkJSON(t, "--replay", "reference")
	if code != cli.ExitOK || !rep.AllPassed() || len(rep.Steps) != 8 {
		t.Fatalf("reference replay: exit %d, %+v", code, rep.Steps)
	}
	rep, code, _ = checkJSON(t, "--replay", "reference", "--step", "5")
	if code != cli.ExitOK || len(rep.Steps) != 1 || rep.Steps[0].Number != 5 {
		t.Fatalf("reference replay step 5: exit %d, %+v", code, rep.Steps)
	}
}

// A state dir that cannot be created is a warning, never a failure, and
// is not mistaken for a damaged file.
func TestCheckWithUnusableStateDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, []byte("x"), 0o644)
	root := labkittest.ReferenceRoot(t, "gpu-incident", "etc/containerd/config.toml")
	code, out, errOut := run(t, "--json", "--no-cluster", "--step", "1", "--root", root, "--state-dir", file)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep engine.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := strings.SplitN(content.Msg("cli.state_unavailable", "err", "X"), "X", 2)[0]
	found := false
	for _, p := range rep.Problems {
		if strings.HasPrefix(p, want) {
			found = true
		}
		if strings.HasPrefix(p, strings.SplitN(content.Msg("cli.state_damaged", "err", "X"), "X", 2)[0]) {
			t.Errorf("reported as damaged: %s", p)
		}
	}
	if !found {
		t.Errorf("no state warning in %v", rep.Problems)
	}
}

// Which lab a command works on: --lab, then $LABMATE_LAB; with several
// installed and nothing choosing, a command that is not the TUI says how
// to choose (exit 2), naming the labs.
func TestLabResolution(t *testing.T) {
	root := t.TempDir()
	stateDir := t.TempDir()
	t.Setenv(catalog.EnvLab, "")
	code, _, errOut := run(t, "--root", root, "--no-cluster", "--state-dir", stateDir)
	if code != cli.ExitUsage || !strings.Contains(errOut, "설치된 실습이 여러 개입니다") || !strings.Contains(errOut, "driver-reboot") {
		t.Fatalf("no choice: exit %d, %q", code, errOut)
	}
	t.Setenv(catalog.EnvLab, "driver-reboot")
	code, out, _ := run(t, "--root", root, "--no-cluster", "--state-dir", stateDir, "--json")
	if code != cli.ExitFail || !strings.Contains(out, `"lab": "driver-reboot"`) {
		t.Fatalf("LABMATE_LAB=driver-reboot: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "--lab", "gpu-incident", "--root", root, "--no-cluster", "--state-dir", stateDir, "--json")
	if code != cli.ExitFail || !strings.Contains(out, `"lab": "gpu-incident"`) {
		t.Fatalf("--lab wins over LABMATE_LAB: exit %d\n%s", code, out)
	}
	code, _, errOut = run(t, "--lab", "gpu-incident", "--lab-dir", root, "--root", root)
	if code != cli.ExitUsage || !strings.Contains(errOut, "함께 쓸 수 없습니다") {
		t.Fatalf("--lab and --lab-dir: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "--lab", "no-such-lab", "--root", root)
	if code != cli.ExitUsage || !strings.Contains(errOut, "no-such-lab") {
		t.Fatalf("unknown lab: exit %d, %q", code, errOut)
	}
	// A lab remembered for this root is the choice while it is installed;
	// one that is gone (renamed, removed in an upgrade) is no choice and
	// no error: the other rules decide.
	t.Setenv(catalog.EnvLab, "")
	if err := state.RememberLab(stateDir, root, "driver-reboot"); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "--root", root, "--no-cluster", "--state-dir", stateDir, "--json")
	if code != cli.ExitFail || !strings.Contains(out, `"lab": "driver-reboot"`) {
		t.Fatalf("remembered driver-reboot: exit %d\n%s", code, out)
	}
	if err := state.RememberLab(stateDir, root, "renamed-lab"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, "--root", root, "--no-cluster", "--state-dir", stateDir)
	if code != cli.ExitUsage || !strings.Contains(errOut, "설치된 실습이 여러 개입니다") || strings.Contains(errOut, "renamed-lab") {
		t.Fatalf("remembered lab gone: exit %d, %q", code, errOut)
	}
}

// A named root chooses a lab when it is that lab's default root, or when
// that lab was used with it before (labmate keeps its progress there);
// when that does not single one out, the message lists the commands that
// choose.
func TestRootChoosesTheLab(t *testing.T) {
	t.Setenv(catalog.EnvLab, "")
	stateDir := t.TempDir()
	lab := func(args ...string) (int, string, string) {
		code, out, errOut := run(t, append([]string{"--no-cluster", "--json", "--state-dir", stateDir}, args...)...)
		var rep struct {
			Lab string `json:"lab"`
		}
		_ = json.Unmarshal([]byte(out), &rep)
		return code, rep.Lab, errOut
	}
	for root, want := range map[string]string{"/root/gpuop": "gpu-incident", "/root/gpudrv/": "driver-reboot"} {
		if code, got, errOut := lab("--root", root); got != want {
			t.Errorf("--root %s: lab %q, want %s (exit %d, %s)", root, got, want, code, errOut)
		}
	}
	root := t.TempDir()
	code, got, errOut := lab("--root", root)
	if code != cli.ExitUsage || got != "" {
		t.Fatalf("a fresh root: exit %d, lab %q", code, got)
	}
	for _, want := range []string{"설치된 실습이 여러 개입니다", "labmate check --lab gpu-incident", "labmate check --lab driver-reboot",
		"--root ~/gpuop", "LABMATE_LAB="} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the choose-a-lab message lacks %q:\n%s", want, errOut)
		}
	}
	used := func(id string) {
		st, err := state.Open(stateDir, id, root)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Update(func(f *state.File) { f.Progress.CurrentStep = 2 }); err != nil {
			t.Fatal(err)
		}
	}
	used("driver-reboot")
	if _, got, errOut := lab("--root", root); got != "driver-reboot" {
		t.Errorf("a root driver-reboot was used with: lab %q (%s)", got, errOut)
	}
	used("gpu-incident")
	if code, got, _ := lab("--root", root); code != cli.ExitUsage || got != "" {
		t.Errorf("a root both labs were used with: exit %d, lab %q", code, got)
	}
}

// A store of installed labs that cannot be read hides every installed
// lab: the command that lists the labs says so, in Korean.
func TestAnUnreadableStoreIsSaid(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv(catalog.EnvLab, "")
	// A file where the store's directory goes.
	if err := os.MkdirAll(filepath.Join(data, "labmate"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "labmate", "labs"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "--root", t.TempDir(), "--no-cluster", "--state-dir", t.TempDir())
	if code != cli.ExitUsage || !strings.Contains(errOut, "설치된 실습이 여러 개입니다") || !strings.Contains(errOut, "설치한 실습 목록을 읽지 못했습니다") {
		t.Errorf("no choice with an unreadable store: exit %d, %q", code, errOut)
	}
}

// The same directory a lab verify proves runs as a lab: nothing at the
// root passes; the reference answers do.
func TestALabDirectoryRuns(t *testing.T) {
	dir := testfiles.Dir(t, labkittest.FileLab())
	root := t.TempDir()
	var rep struct {
		Lab   string `json:"lab"`
		Steps []struct {
			Status string `json:"status"`
		} `json:"steps"`
	}
	code, out, _ := run(t, "--lab-dir", dir, "--root", root, "--json", "--state-dir", t.TempDir())
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	if code != cli.ExitFail || rep.Lab != "nginx-conf" || len(rep.Steps) != 2 || rep.Steps[0].Status != "failed" {
		t.Fatalf("empty root: exit %d, %+v", code, rep)
	}
	for rel, mode := range map[string]os.FileMode{"bin/reload.sh": 0o755, "etc/site.toml": 0o644} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(labkittest.FileLab()["reference/"+rel]), mode); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run(t, "--lab-dir", dir, "--root", root, "--json", "--state-dir", t.TempDir())
	if code != cli.ExitOK {
		t.Fatalf("reference answers: exit %d\n%s\n%s", code, out, errOut)
	}
}

// The test factory's lab from a directory is the lab checked, whatever
// --lab says.
func TestTheFactorysLabIsChecked(t *testing.T) {
	tf := clitest.NewTestFactory(t).WithLabDir(testfiles.Dir(t, labkittest.FileLab()))
	code, out, errOut := tf.Run(NewCmd, "--lab", "driver-reboot", "--root", t.TempDir(), "--json")
	if code != cli.ExitFail || !strings.Contains(out, `"lab": "nginx-conf"`) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(tf.StateDir()); err != nil {
		t.Errorf("no state kept in the factory's state dir %s: %v", tf.StateDir(), err)
	}
}

// A lab's start/ is what a lab root starts with: check lays it out in
// the root, only where nothing is, and says which files it made.
func TestStartFilesAreLaidOutForTheLearner(t *testing.T) {
	files := labkittest.FileLabWith(t, [3]string{"lab.toml", `intro = "intro.md"`, `intro = "intro.md"` + "\nstart = \"start\""})
	files["start/etc/site.toml"] = "[server]\nport = 80\n"
	files["start/bin/reload.sh"] = "#!/bin/sh\n"
	dir := testfiles.Dir(t, files)
	root := t.TempDir()
	mine := filepath.Join(root, "bin", "reload.sh")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("#!/bin/sh\nmine\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := run(t, "--lab-dir", dir, "--root", root, "--state-dir", t.TempDir())
	if b, err := os.ReadFile(filepath.Join(root, "etc", "site.toml")); err != nil || string(b) != "[server]\nport = 80\n" {
		t.Errorf("the start file was not laid out: %q %v\n%s\n%s", b, err, out, errOut)
	}
	if b, _ := os.ReadFile(mine); string(b) != "#!/bin/sh\nmine\n" {
		t.Errorf("the learner's own file was replaced: %q", b)
	}
	if !strings.Contains(out+errOut, "etc/site.toml") || strings.Contains(out+errOut, "bin/reload.sh 를 만들") {
		t.Errorf("check does not say which start file it made:\n%s\n%s", out, errOut)
	}
}

// An installed lab is choosable like an embedded one, its version too;
// one with an embedded lab's ID does not replace it: the plain ID opens
// the embedded one, ID@installed the installed one.
func TestInstalledLabsAreChosenByReference(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	if _, err := labstore.InstallDir(labkittest.CopiedLab(t, "trip", "1.0.0"), "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := labstore.InstallDir(labkittest.CopiedLab(t, "trip", "1.1.0"), "test"); err != nil {
		t.Fatal(err)
	}
	dr := labkittest.CopiedLab(t, "driver-reboot", "9.0.0")
	labkittest.SetLabTOML(t, dr, `title = "재부팅 뒤`, `title = "설치본: 재부팅 뒤`)
	if _, err := labstore.InstallDir(dr, "test"); err != nil {
		t.Fatal(err)
	}
	root, stateDir := t.TempDir(), t.TempDir()
	for _, ref := range []string{"trip", "trip@1.0.0"} {
		code, out, stderr := run(t, "--lab", ref, "--root", root, "--no-cluster", "--state-dir", stateDir, "--json")
		if code != cli.ExitFail || !strings.Contains(out, `"lab": "trip"`) {
			t.Errorf("check --lab %s: exit %d\n%s%s", ref, code, out, stderr)
		}
	}
	for ref, want := range map[string]string{"driver-reboot": "재부팅 뒤", "driver-reboot@embedded": "재부팅 뒤", "driver-reboot@installed": "설치본"} {
		code, out, stderr := run(t, "--lab", ref, "--root", root, "--no-cluster", "--state-dir", stateDir)
		if code != cli.ExitFail || !strings.HasPrefix(out, want) {
			t.Errorf("check --lab %s: exit %d, want the title %q first:\n%s%s", ref, code, want, out, stderr)
		}
	}
}

// A new version of an installed lab opens with the progress of the
// steps whose IDs remain, and says so; the old version's file is its own.
func TestProgressFollowsANewVersionByStepID(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	root, stateDir := t.TempDir(), t.TempDir()
	v1 := labkittest.CopiedLab(t, "trip", "1.0.0")
	if _, err := labstore.InstallDir(v1, "test"); err != nil {
		t.Fatal(err)
	}
	text, err := content.LoadDir(v1)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := state.OpenLab(stateDir, cli.StateLab(text), root)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if err := st.Record(state.Event{Kind: state.StepPassed, Step: 1, At: at}, state.Event{Kind: state.StepPassed, Step: 2, At: at}); err != nil {
		t.Fatal(err)
	}
	// 1.1.0 renames step 1's ID: its pass stays with 1.0.0.
	v2 := labkittest.CopiedLab(t, "trip", "1.1.0")
	labkittest.SetLabTOML(t, v2, `id = "driver-label"`, `id = "driver-label-v2"`)
	if _, err := labstore.InstallDir(v2, "test"); err != nil {
		t.Fatal(err)
	}
	_, out, stderr := run(t, "--lab", "trip", "--root", root, "--no-cluster", "--state-dir", stateDir)
	if !strings.Contains(out+stderr, "버전 1.0.0 에서 1.1.0으로 바뀌었습니다") || !strings.Contains(out+stderr, "통과한 단계 1개") {
		t.Errorf("no word of the progress carried to 1.1.0:\n%s%s", out, stderr)
	}
	text2, _ := content.LoadDir(v2)
	st2, _ := state.OpenLab(stateDir, cli.StateLab(text2), root)
	f2, err := st2.Load()
	if _, ok := f2.Progress.PassedAt[1]; err != nil || ok || len(f2.Progress.PassedAt) != 1 {
		t.Errorf("1.1.0 progress = %v (%v), want step 2's pass only", f2.Progress.PassedAt, err)
	}
	if f1, _ := st.Load(); len(f1.Progress.PassedAt) != 2 {
		t.Errorf("1.0.0 progress changed: %v", f1.Progress.PassedAt)
	}
}
