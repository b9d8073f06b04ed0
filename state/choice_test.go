package state

import (
	"os"
	"path/filepath"
	"testing"
)

// A choice is kept per root, a later one replaces it, and reading writes
// nothing (no lock file on a read-only start).
func TestLabChoicePerRoot(t *testing.T) {
	dir := t.TempDir()
	if got, err := ChosenLab(dir, "/root/a"); got != "" || err != nil {
		t.Fatalf("nothing chosen yet: %q, %v", got, err)
	}
	if got, err := ChosenLab(filepath.Join(dir, "not-yet"), "/root/a"); got != "" || err != nil {
		t.Fatalf("no state dir yet: %q, %v", got, err)
	}
	for _, c := range []struct{ root, lab string }{{"/root/a", "gpu-incident"}, {"/root/b", "driver-reboot"}, {"", "driver-reboot"}, {"/root/a", "driver-reboot"}} {
		if err := RememberLab(dir, c.root, c.lab); err != nil {
			t.Fatal(err)
		}
	}
	for root, want := range map[string]string{"/root/a": "driver-reboot", "/root/b": "driver-reboot", "": "driver-reboot", "/root/c": ""} {
		if got, err := ChosenLab(dir, root); got != want || err != nil {
			t.Errorf("root %q: %q, %v; want %q", root, got, err, want)
		}
	}
	ro := t.TempDir()
	if err := os.WriteFile(filepath.Join(ro, choicesFile), []byte(`{"roots": {"/r": "x"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := ChosenLab(ro, "/r"); got != "x" {
		t.Errorf("read %q", got)
	}
	if entries, _ := os.ReadDir(ro); len(entries) != 1 {
		t.Errorf("reading a choice wrote files: %v", entries)
	}
}

// A damaged choices file is an error to read (the caller falls back to
// its other rules) and only loses the choices when one is made.
func TestLabChoiceDamagedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, choicesFile)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ChosenLab(dir, "/r"); got != "" || err == nil {
		t.Errorf("damaged file: %q, %v; want no choice and an error", got, err)
	}
	if err := RememberLab(dir, "/r", "gpu-incident"); err != nil {
		t.Fatal(err)
	}
	if got, err := ChosenLab(dir, "/r"); got != "gpu-incident" || err != nil {
		t.Errorf("after remembering: %q, %v", got, err)
	}
}
