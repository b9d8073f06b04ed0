package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/observe/scriptprobe"
	"github.com/labhub/labmate/sandbox/prebuilt"
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

// The sandbox's binaries are checked against the sha256 they were
// installed with: a replaced one is a failure naming it, with the
// command that reinstalls it; a bin dir without a record says nothing.
func TestBinariesProbe(t *testing.T) {
	bin := t.TempDir()
	if got := binariesProbe(bin); len(got) != 0 {
		t.Errorf("a bin dir without a record: %+v", got)
	}
	for _, b := range []string{"kubectl", "kwok"} {
		os.WriteFile(filepath.Join(bin, b), []byte("as installed "+b), 0o755)
	}
	if err := prebuilt.Record(bin, []string{"kubectl", "kwok"}); err != nil {
		t.Fatal(err)
	}
	if got := binariesProbe(bin); len(got) != 1 || got[0].Verdict != OK {
		t.Errorf("as installed: %+v", got)
	}
	os.WriteFile(filepath.Join(bin, "kwok"), []byte("#!/bin/sh\n"), 0o755)
	got := binariesProbe(bin)
	if len(got) != 1 || got[0].Verdict != Fail || !strings.Contains(got[0].Detail, "kwok") || strings.Contains(got[0].Detail, "kubectl") ||
		!strings.Contains(got[0].Fix, filepath.Join(bin, "kwok")) || !strings.Contains(got[0].Fix, "labmate sandbox up") {
		t.Errorf("kwok replaced: %+v", got)
	}
}
