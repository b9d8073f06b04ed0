package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeEditor writes a script named name that records its arguments, one
// a line, in log and then runs rest (a shell line).
func fakeEditor(t *testing.T, name, rest string) (script, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "argv")
	script = filepath.Join(dir, name)
	body := "#!/bin/sh\nfor a; do printf '%s\\n' \"$a\"; done > " + log + ".tmp && mv " + log + ".tmp " + log + "\n" + rest + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, log
}

// labRoot is a lab root with the file the fixture's failing check points
// at (etc/containerd/conf.d/99-nvidia.toml:6:17).
func labRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "etc", "containerd", "conf.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "99-nvidia.toml"), []byte("version = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		if b, err := os.ReadFile(path); err == nil {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Outside tmux the edit key hands the terminal to the editor at the
// failing check's line and column, and labmate comes back on the same
// step when it exits, the whole screen drawn again.
func TestTmuxEditHandsTheTerminalOver(t *testing.T) {
	t.Parallel()
	root := labRoot(t)
	script, log := fakeEditor(t, "nano", "printf 'FAKE-EDITOR-SCREEN\\n'; read answer")
	p := startPane(t, 60, 20, []string{"TMUX=", "TMUX_PANE=", "EDITOR=" + script}, "-root", root)
	p.waitFor("1/8")
	p.keys("2")
	p.waitFor("e 편집")
	p.keys("e")
	p.waitFor("FAKE-EDITOR-SCREEN")
	want := "+6,17\n" + filepath.Join(root, "etc/containerd/conf.d/99-nvidia.toml") + "\n"
	if got := waitFile(t, log); got != want {
		t.Errorf("the editor got %q, want %q", got, want)
	}
	p.keys("Enter") // the editor exits
	s := p.waitFor("2/8 toolkit", "닫았습니다")
	if strings.Contains(s, "FAKE-EDITOR-SCREEN") {
		t.Errorf("the editor's screen is still there:\n%s", s)
	}
	p.checkScreen(s)
	p.keys("q")
	if rc := p.exited(); rc != 0 {
		t.Errorf("exit %d", rc)
	}
}

// An editor that fails is said in Korean and the screen stays on its step.
func TestTmuxEditFailureIsSaid(t *testing.T) {
	t.Parallel()
	root := labRoot(t)
	script, _ := fakeEditor(t, "vim", "exit 3")
	p := startPane(t, 60, 20, []string{"TMUX=", "TMUX_PANE=", "EDITOR=" + script}, "-root", root)
	p.waitFor("1/8")
	p.keys("2", "e")
	s := p.waitFor("2/8 toolkit", "종료 코드 3")
	p.checkScreen(s)
}

// Inside tmux the editor opens in a pane beside labmate's, which stays.
func TestTmuxEditOpensAPaneBeside(t *testing.T) {
	t.Parallel()
	root := labRoot(t)
	script, log := fakeEditor(t, "hx", "sleep 600")
	p := startPane(t, 100, 24, []string{"EDITOR=" + script}, "-root", root)
	p.waitFor("1/8")
	p.keys("2", "e")
	want := filepath.Join(root, "etc/containerd/conf.d/99-nvidia.toml") + ":6:17\n"
	if got := waitFile(t, log); got != want {
		t.Errorf("the editor got %q, want %q", got, want)
	}
	panes := strings.Fields(p.tmux("list-panes", "-t", "lab", "-F", "#{pane_index}:#{pane_width}x#{pane_height}"))
	if len(panes) != 2 {
		t.Fatalf("panes %v, want labmate's and the editor's", panes)
	}
	// The editor's pane is on the left (0), labmate's stays on the right
	// with the step and the toast.
	deadline := time.Now().Add(patience)
	for {
		s := p.tmux("capture-pane", "-p", "-t", "lab.1")
		if strings.Contains(s, "옆 창에 열었습니다") && strings.Contains(s, "2/8") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("labmate's pane:\n%s", s)
		}
		time.Sleep(80 * time.Millisecond)
	}
}

// Plain mode reads out in lines, says each change of a step once and
// takes every key as a typed command.
func TestTmuxPlainMode(t *testing.T) {
	t.Parallel()
	p := startPane(t, 100, 30, nil, "-plain", "-lab", "fixture")
	s := p.waitFor("평문 모드", "2단계 중 1단계를 통과했습니다")
	if c := p.capture(true); strings.Contains(c, "\x1b[") {
		t.Errorf("plain mode wrote an escape sequence:\n%q", c)
	}
	_ = s
	p.keys("help", "Enter")
	p.waitFor("명령 목록", "hint (h, 힌트)", "edit (e, 편집)")
	p.keys("2", "Enter")
	p.waitFor("2단계, 전체 2단계 중", "위치: etc/containerd/conf.d/99-nvidia.toml:6:17")
	p.keys("h", "Enter")
	p.waitFor("힌트 1/3: 테이블 이름은 runtimes.nvidia 입니다.")
	p.tmux("clear-history", "-t", "lab")
	// A change of step 2's state is said once, as a line.
	if err := syscallKill(p.pid(), "USR1"); err != nil {
		t.Fatal(err)
	}
	s = p.waitFor("2단계 toolkit 이 떨어뜨리는 드롭인 재현: 미통과에서 통과로 바뀌었습니다.")
	if n := strings.Count(s, "통과로 바뀌었습니다"); n != 1 {
		t.Errorf("the change was said %d times:\n%s", n, s)
	}
	p.keys("quit", "Enter")
	if rc := p.exited(); rc != 0 {
		t.Errorf("exit %d", rc)
	}
}

// `labmate --plain` (and LABMATE_PLAIN=1) on real files: the lab read
// out in lines, the steps' state once the first answer is in, commands
// typed, no escape sequence.
func TestTmuxPlainRealBinary(t *testing.T) {
	t.Parallel()
	bin := buildLabmate(t)
	root := filepath.Join(t.TempDir(), "gpuop")
	b, err := os.ReadFile("../content/labs/gpu-incident/reference/etc/containerd/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "etc/containerd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/containerd/config.toml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, how := range [][]string{{"--plain"}, {}} {
		env := xdgEnv(t)
		if len(how) == 0 {
			env = append(env, "LABMATE_PLAIN=1")
		}
		p := startProgram(t, bin, 100, 30, env, append(how, "--root", root, "--no-cluster")...)
		t.Logf("started with %v", how)
		p.waitFor("8단계 중 1단계를 통과했습니다.")
		if h := p.tmux("capture-pane", "-p", "-S", "-", "-t", "lab"); !strings.Contains(h, "평문 모드") {
			t.Errorf("%v: no welcome in the pane's history:\n%s", how, h)
		}
		p.keys("2", "Enter")
		waitHistory(t, p, "2단계, 전체 8단계 중", "2단계는 미통과")
		if c := p.capture(true); strings.Contains(c, "\x1b[") {
			t.Errorf("%v: an escape sequence on the screen:\n%q", how, c)
		}
		p.keys("quit", "Enter")
		if rc := p.exited(); rc != 0 {
			t.Errorf("%v: exit %d", how, rc)
		}
	}
}

// waitHistory waits until the pane's whole history (plain mode scrolls)
// holds every want.
func waitHistory(t *testing.T, p *pane, wants ...string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		h := p.tmux("capture-pane", "-p", "-S", "-", "-t", "lab")
		ok := true
		for _, w := range wants {
			ok = ok && strings.Contains(h, w)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pane's history never held %q:\n%s", wants, h)
		}
		time.Sleep(80 * time.Millisecond)
	}
}
