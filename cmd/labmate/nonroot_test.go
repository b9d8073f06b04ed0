package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/labhub/labmate/doctor"
	"github.com/labhub/labmate/internal/testbin"
)

// nobody is the unprivileged learner a root test runs the binary as.
const nobody = 65534

// nonRoot is a learner who is not root, with a home of their own: the
// test's own user when it is not root, else nobody (CI runs as root).
type nonRoot struct {
	t    *testing.T
	bin  string
	home string
	cred *syscall.Credential
}

// newNonRoot makes the learner's home where they can reach it: under a
// directory anyone may enter (a test's temporary directory is its
// owner's alone), owned by them.
func newNonRoot(t *testing.T) *nonRoot {
	t.Helper()
	base, err := os.MkdirTemp("", "labmate-learner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	l := &nonRoot{t: t, bin: testbin.Build(t, "../labmate"), home: filepath.Join(base, "home")}
	if err := os.Mkdir(l.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		l.cred = &syscall.Credential{Uid: nobody, Gid: nobody}
		l.chown(l.home)
	}
	return l
}

// chown gives the learner what the test wrote for them.
func (l *nonRoot) chown(p string) {
	l.t.Helper()
	if l.cred == nil {
		return
	}
	err := filepath.Walk(p, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		l.t.Fatal(err)
	}
}

// run runs labmate as the learner, in their home, with nothing of the
// test's environment but PATH: no XDG directories, no LABMATE_ROOT.
func (l *nonRoot) run(args ...string) (code int, stdout, stderr string) {
	l.t.Helper()
	cmd := exec.Command(l.bin, args...)
	cmd.Dir = l.home
	cmd.Env = []string{"HOME=" + l.home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=xterm-256color"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: l.cred}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		l.t.Fatalf("labmate %s: %v", strings.Join(args, " "), err)
	}
	return code, out.String(), errOut.String()
}

// rootFinding is doctor's finding on the lab root, from --json.
func (l *nonRoot) rootFinding(args ...string) doctor.Finding {
	l.t.Helper()
	_, out, errOut := l.run(append([]string{"doctor", "--json", "--no-cluster", "--lab", "gpu-incident"}, args...)...)
	var res doctor.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		l.t.Fatalf("doctor --json: %v\n%s%s", err, out, errOut)
	}
	for _, f := range res.Findings {
		if f.ID == "root" {
			return f
		}
	}
	l.t.Fatalf("doctor found nothing on the root:\n%s", out)
	return doctor.Finding{}
}

// noChmodOfAnother fails when a fix changes a directory that is not the
// learner's or asks for sudo.
func noChmodOfAnother(t *testing.T, f doctor.Finding) {
	t.Helper()
	for _, line := range strings.Split(f.Fix, "\n") {
		if strings.Contains(line, "chmod") || strings.HasPrefix(strings.TrimSpace(line), "sudo") {
			t.Errorf("fix %q: never a chmod of someone else's directory, never sudo", line)
		}
	}
}

// TestANonRootLearner runs the real binary as a learner who is not root,
// with a home of their own, as labmate is run on a laptop after a package
// install: the GPU incident lab's files go in their home (~/gpuop, not
// /root/gpuop), doctor and check say so and how to make it, the file
// steps (1 to 4, the script run for real) turn green there, progress is
// kept in their home, and a root they cannot use (named by --root or by
// the settings file) gets a fix without sudo that names another root the
// same way, never a chmod of root's directory.
func TestANonRootLearner(t *testing.T) {
	l := newNonRoot(t)
	root := filepath.Join(l.home, "gpuop")

	// Before the root exists: where the files go, and the mkdir.
	f := l.rootFinding()
	if f.Verdict != doctor.Warn || !strings.Contains(f.Detail, "실습 파일은 ~/gpuop 아래에") || !strings.Contains(f.Detail, "아직 없는 디렉터리") || f.Fix != "mkdir -p ~/gpuop" {
		t.Errorf("doctor on a fresh home: %+v", f)
	}
	code, out, errOut := l.run("check", "--no-cluster", "--lab", "gpu-incident", "--step", "1")
	if code != 1 || !strings.Contains(out, "실습 파일은 ~/gpuop 아래에 둡니다") || !strings.Contains(out, "mkdir -p ~/gpuop") || strings.Contains(out, "/root/gpuop") {
		t.Errorf("check on a fresh home: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(root); err == nil {
		t.Fatal("check or doctor made the root")
	}

	// The reference answers of steps 1 to 4, saved where the learner
	// was told.
	for _, rel := range []string{"etc/containerd/config.toml", "etc/containerd/conf.d/99-nvidia.toml", "out/merge.txt", "bin/check-runtime.sh"} {
		src := filepath.Join("..", "..", "content", "labs", "gpu-incident", "reference", filepath.FromSlash(rel))
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l.chown(root)
	code, out, errOut = l.run("check", "--no-cluster", "--lab", "gpu-incident", "--json")
	var rep struct {
		Root  string `json:"root"`
		Steps []struct {
			Number int    `json:"number"`
			Status string `json:"status"`
		} `json:"steps"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if rep.Root != root {
		t.Errorf("check's root %q, want %q", rep.Root, root)
	}
	for _, s := range rep.Steps {
		if s.Number <= 4 && s.Status != "passed" {
			t.Errorf("step %d %s in the learner's home, want passed\n%s", s.Number, s.Status, out)
		}
	}
	if len(rep.Steps) < 4 {
		t.Fatalf("steps %+v", rep.Steps)
	}
	if strings.Contains(strings.Join(rep.Problems, "\n"), "실습 파일은") {
		t.Errorf("a ready root still noted: %q", rep.Problems)
	}
	if states, _ := filepath.Glob(filepath.Join(l.home, ".local", "state", "labmate", "gpu-incident@*", "*", "state.json")); len(states) != 1 {
		t.Errorf("progress kept at %q, want one file in the learner's home", states)
	}
	if f := l.rootFinding(); f.Verdict != doctor.OK || !strings.Contains(f.Detail, "읽고 쓸 수 있음") {
		t.Errorf("doctor on the ready root: %+v", f)
	}

	// A root that is not theirs, named on the command line: another
	// --root, in their home.
	f = l.rootFinding("--root", "/root/gpuop")
	if f.Verdict != doctor.Fail || !strings.Contains(f.Fix, "labmate --root ~/gpuop") {
		t.Errorf("doctor --root /root/gpuop: %+v", f)
	}
	noChmodOfAnother(t, f)
	code, out, _ = l.run("check", "--no-cluster", "--lab", "gpu-incident", "--root", "/root/gpuop", "--step", "1")
	if code != 1 || !strings.Contains(out, "labmate --root ~/gpuop") || strings.Contains(out, "chmod") {
		t.Errorf("check --root /root/gpuop: exit %d\n%s", code, out)
	}

	// Named in the settings file: the fix is the settings file's line.
	cfg := filepath.Join(l.home, ".config", "labmate", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[roots]\ngpu-incident = \"/root/labs/gpuop\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l.chown(filepath.Join(l.home, ".config"))
	f = l.rootFinding()
	if f.Verdict != doctor.Fail || !strings.Contains(f.Detail, "[roots]") || !strings.Contains(f.Fix, `gpu-incident = "~/gpuop"`) || !strings.Contains(f.Fix, "~/.config/labmate/config.toml") {
		t.Errorf("doctor with the settings file's root: %+v", f)
	}
	noChmodOfAnother(t, f)
	// ... and the settings file's root in their home is the one used.
	if err := os.WriteFile(cfg, []byte("[roots]\ngpu-incident = \"~/gpuop\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := l.rootFinding(); f.Verdict != doctor.OK || !strings.Contains(f.Detail, "~/gpuop") || !strings.Contains(f.Detail, "[roots]") {
		t.Errorf("doctor with the settings file's root in the home: %+v", f)
	}
}
