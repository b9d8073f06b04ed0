package tuicmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/state"
)

// No lab is named: with several installed, the picker decides.
func TestMain(m *testing.M) { clitest.Main(m, "") }

// tuiFailed is the start of what labmate says when the TUI could not run
// (here: no terminal to draw on, the test's streams).
var tuiFailed = strings.SplitN(content.Msg("cli.tui_failed", "err", "X"), "X", 2)[0]

// With nothing saying which lab and no terminal to ask on, labmate says
// how to choose (exit 2); the picker was asked in Run, and said so.
func TestWithoutATerminalItSaysHowToChoose(t *testing.T) {
	tf := clitest.NewTestFactory(t)
	code, out, errOut := tf.Run(NewCmd, "--root", t.TempDir())
	if code != cli.ExitUsage || out != "" || !strings.Contains(errOut, "설치된 실습이 여러 개입니다") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if tf.Prompter.Asked != 1 {
		t.Errorf("the picker was asked %d times", tf.Prompter.Asked)
	}
}

// The learner left the picker: labmate ends well, saying nothing and
// starting nothing (no state kept).
func TestLeavingThePickerEndsQuietly(t *testing.T) {
	tf := clitest.NewTestFactory(t)
	tf.Prompter.Err = cli.ErrNoChoice
	stateDir := t.TempDir()
	code, out, errOut := tf.Run(NewCmd, "--root", t.TempDir(), "--state-dir", stateDir)
	if code != cli.ExitOK || out != "" || errOut != "" {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if entries, _ := os.ReadDir(stateDir); len(entries) != 0 {
		t.Errorf("leaving the picker kept %d things in the state dir", len(entries))
	}
}

// The learner picked a lab: it is remembered for the root and its run
// wired; every file labmate keeps goes under --state-dir, stderr.log
// too; with no terminal to draw on, the TUI says it could not start
// (exit 1).
func TestThePickedLabOpens(t *testing.T) {
	tf := clitest.NewTestFactory(t)
	tf.Prompter.Picks = "driver-reboot"
	root, stateDir := t.TempDir(), t.TempDir()
	code, _, errOut := tf.Run(NewCmd, "--root", root, "--state-dir", stateDir, "--no-cluster")
	if code != cli.ExitFail || !strings.Contains(errOut, tuiFailed) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if lab, err := state.ChosenLab(stateDir, root); err != nil || lab != "driver-reboot" {
		t.Errorf("the lab remembered for the root: %q, %v", lab, err)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "stderr.log")); err != nil {
		t.Errorf("stderr.log is not in --state-dir: %v", err)
	}
}

// What cannot work is refused before the TUI: a lab that is nowhere, a
// recording that cannot be created (exit 2, in Korean).
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lab", "no-such-lab"}, "no-such-lab"},
		{[]string{"--lab", "gpu-incident", "--no-cluster", "--record", filepath.Join(t.TempDir(), "no", "such", "dir", "run.jsonl")}, "run.jsonl"},
	} {
		tf := clitest.NewTestFactory(t)
		code, out, errOut := tf.Run(NewCmd, append(tc.args, "--root", t.TempDir(), "--state-dir", t.TempDir())...)
		if code != cli.ExitUsage || out != "" || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, tuiFailed) {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", tc.args, code, out, errOut)
		}
		if tf.Prompter.Asked != 0 {
			t.Errorf("%v: the picker was asked with a lab named", tc.args)
		}
	}
}

// --plain (and $LABMATE_PLAIN) runs plain mode on the command's streams:
// the lab said in lines on stdout, commands read from stdin, no escape
// sequence; quit ends it well.
func TestPlainModeRunsOnTheStreams(t *testing.T) {
	for _, how := range [][]string{{"--plain"}, {}} {
		if len(how) == 0 {
			t.Setenv("LABMATE_PLAIN", "1")
		}
		tf := clitest.NewTestFactory(t)
		tf.Stdin = "2\nquit\n"
		code, out, errOut := tf.Run(NewCmd, append(how, "--lab", "gpu-incident", "--root", t.TempDir(), "--state-dir", t.TempDir(), "--no-cluster")...)
		if code != cli.ExitOK || errOut != "" {
			t.Fatalf("%v: exit %d\nstdout %q\nstderr %q", how, code, out, errOut)
		}
		if !strings.Contains(out, "평문 모드") || !strings.Contains(out, "2단계, 전체 8단계 중") {
			t.Errorf("%v: plain mode did not speak on stdout:\n%s", how, out)
		}
		if strings.Contains(out, "\x1b[") {
			t.Errorf("%v: an escape sequence on stdout:\n%q", how, out)
		}
	}
}
