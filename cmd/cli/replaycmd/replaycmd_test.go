package replaycmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/trace"
)

// The command tests work on the GPU incident lab unless they say
// otherwise.
func TestMain(m *testing.M) { clitest.Main(m, "gpu-incident") }

func TestReplayNoTUIPlaysTheReference(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	if !trace.HasReferenceOf(lab) {
		t.Fatal("no reference run built in: labmate must ship one (content/labs/<id>/reference-run.jsonl)")
	}
	code, out, errb := clitest.Run(t, NewCmd, "--no-tui", "--speed", "instant")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	passed := content.Msg("status.passed")
	for n := 1; n <= 8; n++ {
		if !strings.Contains(out, "] "+string(rune('0'+n))+"단계") {
			t.Errorf("no change line for step %d", n)
		}
	}
	if got := strings.Count(out, "["+passed+"]"); got != 8 {
		t.Errorf("final table has %d passed steps\n%s", got, out)
	}
}

func TestReplayFileBeforeFlags(t *testing.T) {
	code, out, errb := clitest.Run(t, NewCmd, filepath.Join("..", "..", "..", "trace", "testdata", "good", "all-kinds.jsonl"), "--no-tui", "--speed=instant")
	if code != cli.ExitFail { // a few records: not every step passes
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	if !strings.Contains(out, "all-kinds.jsonl") {
		t.Errorf("output does not name the trace:\n%s", out)
	}
}

func TestReplayRejectsBadInput(t *testing.T) {
	bad := filepath.Join("..", "..", "..", "trace", "testdata", "bad")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", filepath.Join(bad, "newer-version.jsonl"), "--no-tui"}, "1번째 줄"},
		{[]string{"replay", filepath.Join(bad, "corrupt-middle.jsonl"), "--no-tui"}, "3번째 줄"},
		{[]string{"replay", filepath.Join(bad, "missing.jsonl"), "--no-tui"}, "missing.jsonl"},
		{[]string{"replay", "--speed", "fast", "--no-tui"}, "fast"},
		{[]string{"replay", "--speed", "-2", "--no-tui"}, "-2"},
		{[]string{"replay", "a.jsonl", "b.jsonl"}, "b.jsonl"},
	} {
		code, _, errb := clitest.Run(t, NewCmd, c.args[1:]...)
		if code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, cli.ExitUsage)
		}
		if !strings.Contains(errb, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, errb, c.want)
		}
	}
}

func TestReplayTruncatedTraceWarnsAndPlays(t *testing.T) {
	code, _, errb := clitest.Run(t, NewCmd, "--no-tui", "--speed", "instant", filepath.Join("..", "..", "..", "trace", "testdata", "bad", "truncated-last.jsonl"))
	if code == cli.ExitUsage || !strings.Contains(errb, "4번째 줄") {
		t.Fatalf("exit %d, stderr %q", code, errb)
	}
}
