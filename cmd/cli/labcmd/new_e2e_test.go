package labcmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// On a sandbox made for a new lab, lab eval sees the live objects as the
// cluster step's rule does; the lab proves green, near-misses included
// (the label mutants declared equivalent, the rest killed); without the
// reference of its cluster step, that step's solution fails (exit 1).
// LABMATE_E2E=1.
func TestANewLabProvesItselfOnASandbox(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new-lab")
	if code, out, errOut := run(t, "new", dir); code != cli.ExitOK {
		t.Fatalf("lab new: exit %d\n%s\n%s", code, out, errOut)
	}
	lab, err := content.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := sandboxtest.ForLab(t, lab, "labnew")
	kc := sandbox.Kubeconfig(opts)

	// lab eval sees the sandbox as the step's rule does: the object the
	// reference makes, and the cluster's list of its kind.
	conn, err := sandbox.Connect(opts)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "greeting", Namespace: "new-lab"}, Data: map[string]string{"message": "안녕"}}
	if _, err := cs.CoreV1().ConfigMaps("new-lab").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eval := func(args ...string) (int, string, string) {
		return clitest.NewTestFactory(t).WithKubeconfigs().Run(NewCmd, append([]string{"eval", dir, "--kubeconfig", kc}, args...)...)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--object", "ConfigMap/new-lab/greeting", "object.?data.?message.orValue('') == '안녕하세요'"}, "값: false\n"},
		{[]string{"--object", "ConfigMap/new-lab/greeting", "object.data.message"}, "값: \"안녕\"\n"},
		{[]string{"cluster.get('ConfigMap', 'new-lab', 'greeting').data.message"}, "값: \"안녕\"\n"},
	} {
		if code, out, errOut := eval(tc.args...); code != cli.ExitOK || !strings.Contains(out, tc.want) {
			t.Errorf("lab eval %q: exit %d, %q (stderr %q), want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if code, out, errOut := eval("--object", "ConfigMap/new-lab/nothing", "object == null"); code != cli.ExitOK || !strings.Contains(out, "값: true") || !strings.Contains(errOut, "없습니다") {
		t.Errorf("lab eval of an object that is not there: exit %d, %q, %q", code, out, errOut)
	}

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
