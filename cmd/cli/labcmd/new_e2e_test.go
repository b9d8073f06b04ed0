package labcmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// A new lab proves green on a sandbox made for it, near-misses included
// (the label mutants declared equivalent, the rest killed), and the CI
// report says so; without the reference of its cluster step, that step's
// solution fails (exit 1). LABMATE_E2E=1.
func TestANewLabProvesItselfOnASandbox(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new-lab")
	if code, out, errOut := run(t, "new", dir); code != cli.ExitOK {
		t.Fatalf("lab new: exit %d\n%s\n%s", code, out, errOut)
	}
	lab, err := content.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	kc := sandbox.Kubeconfig(sandboxtest.ForLab(t, lab, "labnew"))

	verify := func(args ...string) (int, string, string) {
		return clitest.NewTestFactory(t).WithKubeconfigs().Run(NewCmd, append([]string{"verify", dir, "--kubeconfig", kc}, args...)...)
	}
	code, table, errOut := verify("--mutants")
	if code != cli.ExitOK {
		t.Fatalf("lab verify --mutants of a new lab: exit %d\n%s\n%s", code, table, errOut)
	}
	// The cluster step's near-misses: some made and killed, the label
	// ones declared equivalent, none surviving.
	mutants := regexp.MustCompile(`(?m)^✓\s+2\s+변이\s.*$`).FindString(table)
	if mutants == "" || strings.Contains(mutants, "만듦 0") || strings.Contains(mutants, "동등 0") || !strings.Contains(mutants, "살아남음 0") {
		t.Errorf("the cluster step's near-misses row %q is not as the scaffold declares:\n%s", mutants, table)
	}

	if err := os.Remove(filepath.Join(dir, "reference", "k8s", "greeting.yaml")); err != nil {
		t.Fatal(err)
	}
	code, table, errOut = verify()
	if code != cli.ExitFail {
		t.Fatalf("lab verify without the cluster step's reference: exit %d, want %d\n%s\n%s", code, cli.ExitFail, table, errOut)
	}
	failed := failedRows(table)
	if len(failed) != 1 || !strings.Contains(failed[0], "참고 풀이") || !strings.Contains(failed[0], "k8s/greeting.yaml") {
		t.Errorf("failed rows %q, want the cluster step's solution naming k8s/greeting.yaml:\n%s", failed, table)
	}
}
