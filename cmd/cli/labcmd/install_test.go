package labcmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/labkit/labkittest"
)

// labList reads `lab list --json` into entries by what --lab takes.
func labList(t *testing.T) map[string]catalog.Entry {
	t.Helper()
	code, out, stderr := run(t, "list", "--json")
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

// Installed, packed and installed again as a second version, listed
// beside the embedded labs, removed: and removing it again says it is
// not there.
func TestLabInstallListRemove(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	code, stdout, stderr := run(t, "install", labkittest.CopiedLab(t, "trip", "1.0.0"))
	if code != cli.ExitOK || !strings.Contains(stdout, "labmate --lab trip") {
		t.Fatalf("install: exit %d\n%s%s", code, stdout, stderr)
	}
	// Packed, then installed from the archive: a second version.
	archive := filepath.Join(t.TempDir(), "trip.tar.gz")
	if code, _, stderr := run(t, "pack", labkittest.CopiedLab(t, "trip", "1.1.0"), "-o", archive); code != cli.ExitOK {
		t.Fatal(stderr)
	}
	if code, _, stderr := run(t, "install", archive); code != cli.ExitOK {
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
	if code, _, stderr := run(t, "remove", "trip"); code != cli.ExitOK {
		t.Fatal(stderr)
	}
	if _, ok := labList(t)["trip"]; ok {
		t.Error("trip listed after lab remove")
	}
	code, _, stderr = run(t, "remove", "trip")
	if code != cli.ExitFail || !strings.Contains(stderr, "설치된 실습에 trip") {
		t.Errorf("removing it again: exit %d: %s", code, stderr)
	}
}

// An installed lab with an embedded lab's ID does not replace it:
// install and list say how to open the installed one.
func TestInstalledLabDoesNotShadowAnEmbeddedOne(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir := labkittest.CopiedLab(t, "driver-reboot", "9.0.0")
	labkittest.SetLabTOML(t, dir, `title = "재부팅 뒤`, `title = "설치본: 재부팅 뒤`)
	code, stdout, stderr := run(t, "install", dir)
	if code != cli.ExitOK || !strings.Contains(stdout, "--lab driver-reboot@installed") || !strings.Contains(stdout, "내장 실습을 엽니다") {
		t.Fatalf("install: exit %d\n%s%s", code, stdout, stderr)
	}
	_, listed, _ := run(t, "list")
	if !strings.Contains(listed, "driver-reboot@installed  9.0.0") || !strings.Contains(listed, "--lab driver-reboot@installed") {
		t.Errorf("lab list does not show the installed copy and how to open it:\n%s", listed)
	}
}

// `lab list --json` is the stable shape tools read.
func TestLabListJSON(t *testing.T) {
	code, out, _ := run(t, "list", "--json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var labs []map[string]any
	if err := json.Unmarshal([]byte(out), &labs); err != nil {
		t.Fatal(err)
	}
	ids := map[string]float64{}
	for _, l := range labs {
		if len(l) != 6 || l["title"] == "" || l["source"] != "embedded" || l["version"] != "1.0.0" || l["lab"] != l["id"] {
			t.Errorf("entry %v: want exactly id, title, steps, version 1.0.0, source embedded, lab", l)
		}
		ids[l["id"].(string)] = l["steps"].(float64)
	}
	if len(ids) != 3 || ids["gpu-incident"] != 8 || ids["driver-reboot"] != 5 || ids["gpu-quota"] != 5 {
		t.Errorf("labs %v", ids)
	}
}
