package labcmd

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/labkit/labkittest"
)

// The command tests work on the GPU incident lab unless they say
// otherwise, on a store of installed labs of their own.
func TestMain(m *testing.M) { clitest.Main(m, "gpu-incident") }

// run runs `labmate lab ARGS...` on a test factory.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return clitest.Run(t, NewCmd, args...)
}

func TestLabPackIsDeterministic(t *testing.T) {
	out := t.TempDir()
	var sums []string
	for i, dir := range []string{labkittest.CopiedLab(t, "trip", "1.0.0"), labkittest.CopiedLab(t, "trip", "1.0.0")} {
		file := filepath.Join(out, string(rune('a'+i))+".tar.gz")
		code, stdout, stderr := run(t, "pack", dir, "-o", file)
		if code != cli.ExitOK {
			t.Fatalf("pack: exit %d: %s", code, stderr)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if !strings.Contains(stdout, hex.EncodeToString(sum[:])) {
			t.Errorf("pack printed %q, not the file's sha256", stdout)
		}
		sums = append(sums, hex.EncodeToString(sum[:]))
	}
	if sums[0] != sums[1] {
		t.Errorf("the same lab in two directories packed to %s and %s", sums[0], sums[1])
	}
}

func TestLabInstallRefusesASyntaxError(t *testing.T) {
	dir := labkittest.CopiedLab(t, "broken", "1.0.0")
	raw, err := os.ReadFile(filepath.Join(dir, "lab.toml"))
	if err != nil {
		t.Fatal(err)
	}
	at := 1 + strings.Count(string(raw[:strings.Index(string(raw), `intro = "intro.md"`)]), "\n")
	labkittest.SetLabTOML(t, dir, `intro = "intro.md"`, `intro = "intro.md`)
	code, _, stderr := run(t, "install", dir)
	if code != cli.ExitFail || !strings.Contains(stderr, fmt.Sprintf("lab.toml %d행", at)) {
		t.Fatalf("exit %d, want 1 naming lab.toml's line %d:\n%s", code, at, stderr)
	}
	code, _, stderr = run(t, "install", filepath.Join(t.TempDir(), "none.tar.gz"))
	if code != cli.ExitFail || !strings.Contains(stderr, "none.tar.gz 가 없습니다") {
		t.Fatalf("a missing file: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "pack", filepath.Join(t.TempDir(), "nolab"))
	if code != cli.ExitFail || !strings.Contains(stderr, "nolab") || !strings.Contains(stderr, "없습니다") {
		t.Fatalf("a missing directory: exit %d: %s", code, stderr)
	}
}

// rbac prints the lab's roles, with a binding for the subject named; a
// subject it cannot read and a lab that is not found are usage errors
// in Korean.
func TestRBAC(t *testing.T) {
	code, out, errOut := run(t, "rbac", "driver-reboot", "--serviceaccount", "lab:reader")
	if code != cli.ExitOK || !strings.HasPrefix(out, "# labmate lab rbac driver-reboot:") ||
		!strings.Contains(out, "kind: ServiceAccount") || !strings.Contains(out, "namespace: lab") || errOut != "" {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rbac", "--serviceaccount", "reader"}, "reader"},
		{[]string{"rbac", "no-such-lab"}, "no-such-lab"},
		{[]string{"rbac", "--user", "u", "--group", "g"}, "--user"},
	} {
		code, out, errOut := run(t, tc.args...)
		if code != cli.ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
