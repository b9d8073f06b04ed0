package doctorcmd

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/doctor"
	"github.com/labhub/labmate/sandbox"
)

// The command tests work on the GPU incident lab unless they say
// otherwise.
func TestMain(m *testing.M) { clitest.Main(m, "gpu-incident") }

// goodTerminal gives doctor a terminal with nothing to complain about,
// whatever the machine running the tests has.
func goodTerminal(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_CTYPE", "")
	t.Setenv("NO_COLOR", "")
	t.Setenv("TMUX", "")
}

// timedRun runs `labmate doctor ARGS...` with the real kubeconfig loader.
func timedRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	start := time.Now()
	code, out, errOut := clitest.NewTestFactory(t).WithKubeconfigs().Run(NewCmd, args...)
	// doctor's own budget is 5 s (its deadline, tested in package
	// doctor by verdicts); this only catches a run that hung.
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("labmate doctor %s took %v: it hung past doctor's 5 s budget", strings.Join(args, " "), took)
	}
	return code, out, errOut
}

func TestDoctorAllWellExitsZero(t *testing.T) {
	goodTerminal(t)
	code, out, errOut := timedRun(t, "--no-cluster", "--root", t.TempDir(), "--state-dir", t.TempDir())
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "모두 정상입니다") && !strings.Contains(out, "문제 0개") {
		t.Errorf("no all-well summary:\n%s", out)
	}
}

func TestDoctorNoKubeconfig(t *testing.T) {
	goodTerminal(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	code, out, _ := timedRun(t, "--root", t.TempDir(), "--state-dir", t.TempDir())
	if code != cli.ExitFail || !strings.Contains(out, "[문제] kubeconfig") || !strings.Contains(out, "labmate sandbox up") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestDoctorClosedPortJSON(t *testing.T) {
	goodTerminal(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://%s"}}]
contexts: [{name: lab, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: x}}]
current-context: lab
`, addr)), 0o600)
	code, out, errOut := timedRun(t, "--json", "--kubeconfig", kc, "--root", t.TempDir(), "--state-dir", t.TempDir())
	if code != cli.ExitFail {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	var r struct {
		OK       bool             `json:"ok"`
		Findings []doctor.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	verdicts := map[string]doctor.Verdict{}
	for _, f := range r.Findings {
		verdicts[f.ID] = f.Verdict
	}
	if r.OK || verdicts["kubeconfig"] != doctor.OK || verdicts["apiserver"] != doctor.Fail || verdicts["nodes"] != doctor.Skip || verdicts["root"] != doctor.OK {
		t.Errorf("ok=%v verdicts=%v", r.OK, verdicts)
	}
}

func TestDoctorRootIsAFile(t *testing.T) {
	goodTerminal(t)
	file := filepath.Join(t.TempDir(), "gpuop")
	os.WriteFile(file, nil, 0o644)
	code, out, _ := timedRun(t, "--no-cluster", "--root", file, "--state-dir", t.TempDir())
	if code != cli.ExitFail || !strings.Contains(out, "[문제] 실습 루트") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// With no kubeconfig by kubectl's rules, doctor looks where labmate itself
// would: the sandbox's kubeconfig.
func TestDoctorFindsTheSandboxKubeconfig(t *testing.T) {
	goodTerminal(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KWOK_WORKDIR", filepath.Join(home, "kwok"))
	kc := sandbox.Kubeconfig(sandbox.Options{})
	os.MkdirAll(filepath.Dir(kc), 0o700)
	os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: kwok-labmate, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: x}}]
current-context: kwok-labmate
`), 0o600)
	_, out, _ := timedRun(t, "--json", "--root", t.TempDir(), "--state-dir", t.TempDir())
	var r struct {
		Findings []doctor.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, f := range r.Findings {
		if f.ID == "kubeconfig" && f.Verdict != doctor.OK {
			t.Fatalf("kubeconfig finding = %+v, want the sandbox's kubeconfig found", f)
		}
	}
}

// doctor never refuses for want of a lab: with several installed and none
// chosen it checks the environment and every lab's needs.
func TestDoctorWithNoLabChosen(t *testing.T) {
	goodTerminal(t)
	t.Setenv(catalog.EnvLab, "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	// A root no lab points to (with none named, a machine where
	// /root/gpuop exists would choose gpu-incident).
	code, out, errOut := timedRun(t, "--root", t.TempDir(), "--state-dir", t.TempDir())
	if code != cli.ExitOK && code != cli.ExitFail || strings.Contains(errOut+out, "설치된 실습이 여러 개입니다") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"[문제] kubeconfig", "실습 루트 (gpu-incident)", "실습 루트 (driver-reboot)", "실습 노드 (gpu-incident)", "파일 감시"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}
