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
