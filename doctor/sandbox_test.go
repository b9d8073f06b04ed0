package doctor

import (
	"os"
	"strings"
	"testing"

	"github.com/labhub/labmate/observe/scriptprobe"
)

func TestMain(m *testing.M) {
	if scriptprobe.IsInit() {
		scriptprobe.InitMain()
	}
	os.Exit(m.Run())
}

// Every mode this machine can run is named, the fallbacks with a warning.
func TestSandboxProbeNamesTheMode(t *testing.T) {
	t.Setenv(scriptprobe.SandboxVar, "")
	best, _ := scriptprobe.Sandbox()
	for _, tc := range []struct {
		capMode string
		verdict Verdict
		word    string
	}{
		{"", map[bool]Verdict{true: OK, false: Warn}[best == scriptprobe.SandboxNamespaces], ""},
		{"landlock", Warn, ""},
		{"none", Warn, "격리 없이"},
	} {
		t.Setenv(scriptprobe.SandboxVar, tc.capMode)
		f := sandboxProbe()
		if f.Verdict != tc.verdict || !strings.Contains(f.Detail, tc.word) || f.Title == "" || strings.Contains(f.Title, "title.") {
			t.Errorf("cap %q: %+v", tc.capMode, f)
		}
	}
}

// The system-call filter is named, and a sandbox without one is a
// warning even with namespaces.
func TestSandboxProbeNamesTheFilter(t *testing.T) {
	t.Setenv(scriptprobe.SandboxVar, "")
	for _, tc := range []struct{ capFilter, word string }{
		{"", "거부하고 관측합니다"},
		{"errno", "알려 주지 않습니다"},
		{"off", "거르지 않습니다"},
	} {
		t.Setenv(scriptprobe.SeccompVar, tc.capFilter)
		f := sandboxProbe()
		if !strings.Contains(f.Detail, tc.word) {
			t.Errorf("filter cap %q: %+v", tc.capFilter, f)
		}
		if tc.capFilter != "" && f.Verdict != Warn {
			t.Errorf("filter cap %q: verdict %v, want a warning", tc.capFilter, f.Verdict)
		}
	}
}
