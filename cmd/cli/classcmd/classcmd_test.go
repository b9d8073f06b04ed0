package classcmd

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/sandbox"
)

// The class's commands' tests name no lab unless they say so.
func TestMain(m *testing.M) { clitest.Main(m, "") }

// run runs `labmate class ARGS...`.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return clitest.Run(t, NewCmd, args...)
}

// adminKubeconfig is an instructor's kubeconfig for a server where
// nothing listens.
func adminKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "admin.kubeconfig")
	kc := `{"apiVersion": "v1", "kind": "Config", "current-context": "c",
"clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
"users": [{"name": "u", "user": {"token": "t"}}], "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}`
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// class init checks its flags before it starts anything: a lab that does
// not exist is refused (exit 2) before --sandbox would start a cluster.
// With an empty bin dir a started sandbox would fail with exit 1 instead.
func TestInitValidatesBeforeTheSandbox(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KWOK_WORKDIR", filepath.Join(home, "kwok"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv(sandbox.EnvBinDir, t.TempDir())
	code, out, errOut := run(t, "init", "--sandbox", "--lab", "no-such-lab", "--out", filepath.Join(home, "out"))
	if code != cli.ExitUsage || !strings.Contains(errOut, "no-such-lab") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, dir := range []string{"kwok", "cache", "out"} {
		if _, err := os.Stat(filepath.Join(home, dir)); !os.IsNotExist(err) {
			t.Errorf("%s was made before the flags were checked (%v)", dir, err)
		}
	}
}

// A lab too big for one object is refused by init before it connects
// anywhere (the kubeconfig names nothing that listens) or writes a
// learner's kubeconfig, with the lab's size in Korean; so is a directory
// among several labs (the class carries one).
func TestInitRefusesALabItCannotCarryBeforeConnecting(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir := labkittest.CopiedLab(t, "big", "1.0.0")
	blob := make([]byte, 1<<20+(1<<18)) // 1.25 MiB that gzip cannot shrink
	if _, err := rand.Read(blob); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recording.bin"), blob, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "class")
	for _, tc := range []struct{ lab, want string }{
		{dir, "1.3 MiB"},
		{dir, "교실 오브젝트 하나에"},
		{"gpu-incident," + labkittest.CopiedLab(t, "small", "1.0.0"), "교실이 실어 나르는 실습은 하나뿐"},
	} {
		code, stdout, errOut := run(t, "init", "--kubeconfig", adminKubeconfig(t), "-n", "w", "--learners", "2", "--out", out, "--lab", tc.lab)
		if code != cli.ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("--lab %s: exit %d, want 2 and %q:\n%s%s", tc.lab, code, tc.want, stdout, errOut)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("init wrote %s before refusing: %v", out, err)
	}
}

// export takes csv or json only, and says so before it connects.
func TestExportRefusesAnUnknownFormat(t *testing.T) {
	code, _, errOut := run(t, "export", "--format", "xml", "--kubeconfig", adminKubeconfig(t))
	if code != cli.ExitUsage || !strings.Contains(errOut, "csv") {
		t.Fatalf("export --format xml: %d %q", code, errOut)
	}
}
