package catchupcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// TestMain gives the test binary the script sandbox's helper entry that
// cmd/labmate has (gpu-incident's step 4 runs the learner's script) and
// nothing of the machine deciding.
func TestMain(m *testing.M) {
	if scriptprobe.IsInit() {
		scriptprobe.InitMain()
	}
	clitest.Main(m, "gpu-incident")
}

const config = "etc/containerd/config.toml"

func learnerRoot(t *testing.T) (root string, args []string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "lab")
	p := filepath.Join(root, config)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("version = 2\n# 내 설정\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, []string{"--lab", "gpu-incident", "--root", root, "--state-dir", t.TempDir(), "--no-cluster"}
}

func backups(t *testing.T, root string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(root, "labmate-backup-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Without an answer nothing changes; with --yes the files steps are
// caught up and the learner's config is kept.
func TestCatchUpAsksThenKeepsTheLearnersFile(t *testing.T) {
	root, args := learnerRoot(t)
	code, out, errOut := clitest.Run(t, NewCmd, append(args, "--to", "5")...)
	if code != 1 || !strings.Contains(errOut, "--yes") || !strings.Contains(out, config) {
		t.Fatalf("no answer: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(root, config)); string(b) != "version = 2\n# 내 설정\n" || len(backups(t, root)) != 0 {
		t.Fatalf("unanswered catch-up changed the root: %q %v", b, backups(t, root))
	}

	// The learner answers no through the factory's Prompter: said,
	// nothing changed; yes catches up.
	tf := clitest.NewTestFactory(t)
	tf.Prompter.Says = "n"
	code, out, _ = tf.Run(NewCmd, append(args, "--to", "5")...)
	if code != 1 || !strings.Contains(out, "따라잡지 않았습니다") || len(tf.Prompter.Questions) != 1 || !strings.Contains(tf.Prompter.Questions[0], "따라잡을까요") {
		t.Fatalf("answered no: exit %d, asked %q\n%s", code, tf.Prompter.Questions, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, config)); string(b) != "version = 2\n# 내 설정\n" || len(backups(t, root)) != 0 {
		t.Fatalf("a catch-up answered no changed the root: %q %v", b, backups(t, root))
	}

	code, out, errOut = clitest.Run(t, NewCmd, append(args, "--to", "5", "--yes")...)
	if code != 0 || !strings.Contains(out, "따라잡았습니다") {
		t.Fatalf("--yes: exit %d\n%s\n%s", code, out, errOut)
	}
	bs := backups(t, root)
	if len(bs) != 1 {
		t.Fatalf("backups %v, want one", bs)
	}
	if b, _ := os.ReadFile(filepath.Join(bs[0], config)); string(b) != "version = 2\n# 내 설정\n" {
		t.Errorf("backup holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, config)); strings.Contains(string(b), "내 설정") {
		t.Error("config not replaced by the reference")
	}
}

// A step that needs the cluster with --no-cluster: refused, nothing
// changed; a step before 2 is a usage error.
func TestCatchUpRefuses(t *testing.T) {
	root, args := learnerRoot(t)
	code, _, errOut := clitest.Run(t, NewCmd, append(args, "--to", "6", "--yes")...)
	if code != 2 || !strings.Contains(errOut, "샌드박스") || !strings.Contains(errOut, "바꾸지 않았습니다") {
		t.Errorf("--to 6 without a cluster: exit %d\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(root, config)); string(b) != "version = 2\n# 내 설정\n" || len(backups(t, root)) != 0 {
		t.Errorf("refused catch-up changed the root: %q", b)
	}
	if code, _, errOut := clitest.Run(t, NewCmd, append(args, "--to", "1")...); code != 2 || !strings.Contains(errOut, "--to") {
		t.Errorf("--to 1: exit %d\n%s", code, errOut)
	}
}
