package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/state"
)

// labList reads `lab list --json` into entries by what --lab takes.
func labList(t *testing.T) map[string]catalog.Entry {
	t.Helper()
	code, out, stderr := runStreams("lab", "list", "--json")
	if code != cli.ExitOK {
		t.Fatalf("lab list: exit %d: %s", code, stderr)
	}
	var entries []catalog.Entry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	byLab := map[string]catalog.Entry{}
	for _, e := range entries {
		byLab[e.Lab] = e
	}
	return byLab
}

func TestLabInstallListOpenRemove(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	root, stateDir := t.TempDir(), t.TempDir()
	code, stdout, stderr := runStreams("lab", "install", labkittest.CopiedLab(t, "trip", "1.0.0"))
	if code != cli.ExitOK || !strings.Contains(stdout, "labmate --lab trip") {
		t.Fatalf("install: exit %d\n%s%s", code, stdout, stderr)
	}
	// Packed, then installed from the archive: a second version.
	archive := filepath.Join(t.TempDir(), "trip.tar.gz")
	if code, _, stderr := runStreams("lab", "pack", labkittest.CopiedLab(t, "trip", "1.1.0"), "-o", archive); code != cli.ExitOK {
		t.Fatal(stderr)
	}
	if code, _, stderr := runStreams("lab", "install", archive); code != cli.ExitOK {
		t.Fatal(stderr)
	}
	labs := labList(t)
	if e := labs["trip"]; e.Source != "installed" || e.Version != "1.1.0" || e.Steps != 5 || e.From != archive || len(e.Sum) != 64 {
		t.Errorf("trip listed as %+v", e)
	}
	if e := labs["trip@1.0.0"]; e.Source != "installed" || e.Version != "1.0.0" {
		t.Errorf("trip 1.0.0 listed as %+v", e)
	}
	if e := labs["gpu-incident"]; e.Source != "embedded" || e.Version != "1.0.0" {
		t.Errorf("gpu-incident listed as %+v", e)
	}
	// Choosable like an embedded lab, the version too.
	for _, ref := range []string{"trip", "trip@1.0.0"} {
		code, out, stderr := runStreams("check", "--lab", ref, "--root", root, "--no-cluster", "--state-dir", stateDir, "--json")
		if code != cli.ExitFail || !strings.Contains(out, `"lab": "trip"`) {
			t.Errorf("check --lab %s: exit %d\n%s%s", ref, code, out, stderr)
		}
	}
	if code, _, stderr := runStreams("lab", "remove", "trip"); code != cli.ExitOK {
		t.Fatal(stderr)
	}
	if _, ok := labList(t)["trip"]; ok {
		t.Error("trip listed after lab remove")
	}
	code, _, stderr = runStreams("lab", "remove", "trip")
	if code != cli.ExitFail || !strings.Contains(stderr, "설치된 실습에 trip") {
		t.Errorf("removing it again: exit %d: %s", code, stderr)
	}
}

// An installed lab with an embedded lab's ID does not replace it: the
// plain ID opens the embedded one; install and list say how to open the
// installed one, and that way opens it.
func TestInstalledLabDoesNotShadowAnEmbeddedOne(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	root, stateDir := t.TempDir(), t.TempDir()
	dir := labkittest.CopiedLab(t, "driver-reboot", "9.0.0")
	labkittest.SetLabTOML(t, dir, `title = "재부팅 뒤`, `title = "설치본: 재부팅 뒤`)
	code, stdout, stderr := runStreams("lab", "install", dir)
	if code != cli.ExitOK || !strings.Contains(stdout, "--lab driver-reboot@installed") || !strings.Contains(stdout, "내장 실습을 엽니다") {
		t.Fatalf("install: exit %d\n%s%s", code, stdout, stderr)
	}
	_, listed, _ := runStreams("lab", "list")
	if !strings.Contains(listed, "driver-reboot@installed  9.0.0") || !strings.Contains(listed, "--lab driver-reboot@installed") {
		t.Errorf("lab list does not show the installed copy and how to open it:\n%s", listed)
	}
	for ref, want := range map[string]string{"driver-reboot": "재부팅 뒤", "driver-reboot@embedded": "재부팅 뒤", "driver-reboot@installed": "설치본"} {
		code, out, stderr := runStreams("check", "--lab", ref, "--root", root, "--no-cluster", "--state-dir", stateDir)
		if code != cli.ExitFail || !strings.HasPrefix(out, want) {
			t.Errorf("check --lab %s: exit %d, want the title %q first:\n%s%s", ref, code, want, out, stderr)
		}
	}
}

// A new version of an installed lab opens with the progress of the
// steps whose IDs remain, and says so; the old version's file is its own.
func TestProgressFollowsANewVersionByStepID(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	root, stateDir := t.TempDir(), t.TempDir()
	v1 := labkittest.CopiedLab(t, "trip", "1.0.0")
	if code, _, stderr := runStreams("lab", "install", v1); code != cli.ExitOK {
		t.Fatal(stderr)
	}
	text, err := content.LoadDir(v1)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := state.OpenLab(stateDir, cli.StateLab(text), root)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if err := st.Record(state.Event{Kind: state.StepPassed, Step: 1, At: at}, state.Event{Kind: state.StepPassed, Step: 2, At: at}); err != nil {
		t.Fatal(err)
	}
	// 1.1.0 renames step 1's ID: its pass stays with 1.0.0.
	v2 := labkittest.CopiedLab(t, "trip", "1.1.0")
	labkittest.SetLabTOML(t, v2, `id = "driver-label"`, `id = "driver-label-v2"`)
	if code, _, stderr := runStreams("lab", "install", v2); code != cli.ExitOK {
		t.Fatal(stderr)
	}
	_, out, stderr := runStreams("check", "--lab", "trip", "--root", root, "--no-cluster", "--state-dir", stateDir)
	if !strings.Contains(out+stderr, "버전 1.0.0 에서 1.1.0으로 바뀌었습니다") || !strings.Contains(out+stderr, "통과한 단계 1개") {
		t.Errorf("no word of the progress carried to 1.1.0:\n%s%s", out, stderr)
	}
	text2, _ := content.LoadDir(v2)
	st2, _ := state.OpenLab(stateDir, cli.StateLab(text2), root)
	f2, err := st2.Load()
	if _, ok := f2.Progress.PassedAt[1]; err != nil || ok || len(f2.Progress.PassedAt) != 1 {
		t.Errorf("1.1.0 progress = %v (%v), want step 2's pass only", f2.Progress.PassedAt, err)
	}
	if f1, _ := st.Load(); len(f1.Progress.PassedAt) != 2 {
		t.Errorf("1.0.0 progress changed: %v", f1.Progress.PassedAt)
	}
}
