package scriptprobe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/observe"
)

// assertInternal checks that every run failed on labmate's side, at
// stage, naming dir, without a word of blame for the script.
func assertInternal(t *testing.T, runs map[string]observe.ScriptObs, stage, dir string) {
	t.Helper()
	if len(runs) != 2 {
		t.Fatalf("runs %v", runs)
	}
	for name, r := range runs {
		if !r.Internal || r.ExitCode != -1 || r.FakeArgv != nil {
			t.Errorf("%s: not reported as labmate's own failure: %+v", name, r)
		}
		if !strings.HasPrefix(r.StartErr, stage+": "+dir+": ") {
			t.Errorf("%s: start err %q, want %q then the reason", name, r.StartErr, stage+": "+dir+": ")
		}
	}
}

func TestTempDirFailureIsLabmates(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, reason string }{
		{"/nonexistent/x", "no such file or directory"},
		{file, "not a directory"},
	} {
		runs := probeOnce(t, "#!/bin/sh\nexit 0\n", 0o755, Options{TempDir: tc.dir})
		assertInternal(t, runs, FailTempDir, tc.dir)
		if r := runs["on"]; !strings.HasSuffix(r.StartErr, tc.reason) {
			t.Errorf("%s: start err %q, want it to end in %q", tc.dir, r.StartErr, tc.reason)
		}
	}
}

// A script that cannot start is the script's; labmate not getting that
// far is not.
func TestScriptStartFailureIsNotInternal(t *testing.T) {
	for _, script := range []string{"no shebang\n", "#!/no/such/shell\n"} {
		for name, r := range probeOnce(t, script, 0o755, Options{}) {
			if r.Internal || r.StartErr == "" {
				t.Errorf("%q %s: %+v", script, name, r)
			}
		}
	}
	for name, r := range probeOnce(t, "#!/bin/sh\n", 0o644, Options{}) {
		if r.Internal || r.StartErr != NotExecutable {
			t.Errorf("not executable, %s: %+v", name, r)
		}
	}
}

// labmate's own failure says nothing about the script, so the same
// content is run again when it is offered again, unlike a real result.
func TestInternalFailureIsRetried(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	script := "#!/bin/sh\nsvctl show config | grep -q features.alpha\n"
	h := start(t, t.TempDir(), []observe.ProbeSpec{testSpec}, Options{TempDir: dir})
	h.p.Offer(present(script, 0o755))
	assertInternal(t, h.runs(2, 30*time.Second), FailTempDir, dir)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h.p.Offer(present(script, 0o755))
	runs := h.runs(2, 30*time.Second)
	if r := runs["on"]; r.Internal || r.StartErr != "" || r.ExitCode != 0 {
		t.Errorf("after the directory appeared: %+v", r)
	}
	// A real result is kept: the same bytes are not run a third time.
	h.p.Offer(present(script, 0o755))
	h.quiet(500 * time.Millisecond)
}
