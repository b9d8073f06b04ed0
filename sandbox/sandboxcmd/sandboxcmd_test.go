package sandboxcmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/internal/cli/clitest"
)

// run runs `labmate sandbox ARGS...` in a home of its own, the lab given
// by lab.
func run(t *testing.T, lab Lab, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KWOK_WORKDIR", filepath.Join(home, "kwok"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	return clitest.Run(t, func(s cli.Streams) *cobra.Command { return NewCmd(s, lab) }, args...)
}

// up needs a lab: without one it says why (exit 2) and starts nothing.
func TestUpWithoutALabStartsNothing(t *testing.T) {
	noLab := func() (*content.Lab, error) { return nil, errors.New("실습을 고르세요") }
	code, out, errOut := run(t, noLab, "up", "--name", "labmate-sandboxcmd-test")
	if code != cli.ExitUsage || out != "" || !strings.Contains(errOut, "실습을 고르세요") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(os.Getenv("KWOK_WORKDIR")); !os.IsNotExist(err) {
		t.Errorf("up without a lab made kwok's work directory (%v)", err)
	}
}

// status of a sandbox that does not exist says so and exits 1, with or
// without a lab; sandbox alone asks which verb.
func TestStatusOfNoSandbox(t *testing.T) {
	noLab := func() (*content.Lab, error) { return nil, errors.New("no lab") }
	code, out, _ := run(t, noLab, "status", "--name", "labmate-sandboxcmd-test")
	if code != cli.ExitFail || !strings.Contains(out, `샌드박스 "labmate-sandboxcmd-test": 없음`) {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	code, _, errOut := run(t, noLab)
	if code != cli.ExitUsage || !strings.Contains(errOut, "up, down, status, build") {
		t.Fatalf("sandbox alone: exit %d, stderr %q", code, errOut)
	}
}
