package classcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
)

// `class report --from` makes the report of a saved export offline: no
// kubeconfig, no cluster; a missing --html or an unreadable export is a
// usage error in Korean.
func TestReportFromExport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	from := filepath.Join("..", "..", "..", "class", "classreport", "testdata", "class.json")
	code, stdout, stderr := run(t, "report", "--from", from, "--html", out, "--kubeconfig", "/nonexistent")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, out) {
		t.Errorf("report does not say where it wrote: %q", stdout)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", `<svg id="funnel"`, "실습 gpu-incident", "learner-07"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--from", from}, "--html 이 필요합니다"},
		{[]string{"report", "--from", filepath.Join(t.TempDir(), "none.json"), "--html", out}, "내보내기 파일"},
		{[]string{"report", "--from", out, "--html", out}, "내보내기 파일"}, // HTML is not an export
	} {
		if code, _, stderr := run(t, tc.args...); code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want usage and %q", tc.args, code, stderr, tc.want)
		}
	}
}
