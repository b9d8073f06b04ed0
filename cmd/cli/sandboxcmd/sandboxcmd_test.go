package sandboxcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/sandbox"
)

// run runs `labmate sandbox ARGS...` in a home of its own, where nothing
// says which of the labs is meant unless ARGS do.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KWOK_WORKDIR", filepath.Join(home, "kwok"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv(catalog.EnvLab, "")
	t.Setenv("LABMATE_ROOT", filepath.Join(home, "root"))
	return clitest.Run(t, NewCmd, args...)
}

// up without a lab and with several installed is not refused: the
// cluster is for whichever lab claims it next (a room without internet
// runs `sandbox up --from FILE` as its instructor says, with no --lab).
// Here the bundle is not there, so it fails getting the programs (exit
// 1, naming the bundle), before anything is made.
func TestUpWithoutALabIsNotRefused(t *testing.T) {
	bundle := filepath.Join(t.TempDir(), "labmate-cluster-linux-amd64.tar.gz")
	t.Setenv(sandbox.EnvBinDir, t.TempDir())
	code, out, errOut := run(t, "up", "--name", "labmate-sandboxcmd-test", "--from", bundle)
	if code != cli.ExitFail || !strings.Contains(errOut, bundle) || strings.Contains(errOut, "실습이 여러 개") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(os.Getenv("KWOK_WORKDIR")); !os.IsNotExist(err) {
		t.Errorf("up made kwok's work directory before it had the programs (%v)", err)
	}
}

// status of a sandbox that does not exist says so and exits 1, with or
// without a lab; sandbox alone asks which verb.
func TestStatusOfNoSandbox(t *testing.T) {
	for _, args := range [][]string{
		{"status", "--name", "labmate-sandboxcmd-test"},
		{"status", "--name", "labmate-sandboxcmd-test", "--lab", "gpu-incident"},
	} {
		code, out, _ := run(t, args...)
		if code != cli.ExitFail || !strings.Contains(out, `샌드박스 "labmate-sandboxcmd-test": 없음`) {
			t.Fatalf("%v: exit %d, stdout %q", args, code, out)
		}
	}
	code, _, errOut := run(t)
	if code != cli.ExitUsage || !strings.Contains(errOut, "up, down, status, build") {
		t.Fatalf("sandbox alone: exit %d, stderr %q", code, errOut)
	}
}
