package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/internal/cli"
)

// `class report --from` makes the report of a saved export offline: no
// kubeconfig, no cluster; a missing --html or an unreadable export is a
// usage error in Korean.
func TestClassReportFromExport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	var stdout, stderr bytes.Buffer
	from := filepath.Join("..", "..", "class", "classreport", "testdata", "class.json")
	if code := run([]string{"class", "report", "--from", from, "--html", out, "--kubeconfig", "/nonexistent"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
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
		{[]string{"class", "report", "--from", from}, "--html 이 필요합니다"},
		{[]string{"class", "report", "--from", filepath.Join(t.TempDir(), "none.json"), "--html", out}, "내보내기 파일"},
		{[]string{"class", "report", "--from", out, "--html", out}, "내보내기 파일"}, // HTML is not an export
	} {
		stderr.Reset()
		if code := run(tc.args, &stdout, &stderr); code != cli.ExitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want usage and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
