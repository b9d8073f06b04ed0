package labrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

// startLab is a lab directory on disk whose start/ holds a config, a
// script and a file in a directory.
func startLab(t *testing.T) *content.Lab {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range map[string]string{
		"lab.toml":                   "id = \"start-demo\"\ntitle = \"시작 파일\"\nstart = \"start\"\n",
		"start/etc/site.toml":        "[server]\nport = 80\n",
		"start/bin/reload.sh":        "#!/bin/sh\n",
		"start/conf.d/99-extra.conf": "x\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	lab, err := content.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

// A live run lays the lab's start files out in its root, creating only
// those that are not there: a learner's own file at a start path, a
// symbolic link there (even one pointing nowhere) and a file where a
// start directory goes are left as they are, and a second run creates
// nothing. It says what it made.
func TestRunLaysOutTheStartOnlyWhereNothingIs(t *testing.T) {
	lab := startLab(t)
	root := t.TempDir()
	mine := filepath.Join(root, "etc", "site.toml")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("[server]\nport = 8080 # mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "conf.d"), []byte("a file of mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.sh")
	if err := os.Symlink(outside, filepath.Join(root, "bin", "reload.sh")); err != nil {
		t.Fatal(err)
	}

	r, err := New(Options{Lab: lab, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "[server]\nport = 8080 # mine\n" {
		t.Errorf("the learner's file was changed: %q", b)
	}
	if _, err := os.Lstat(outside); !os.IsNotExist(err) {
		t.Errorf("a start file was written through a symbolic link: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "conf.d")); string(b) != "a file of mine\n" {
		t.Errorf("the learner's file where a start directory goes was changed: %q", b)
	}
	if w := strings.Join(r.Warnings(), "\n"); !strings.Contains(w, "만들지 못했습니다") || !strings.Contains(w, "conf.d") {
		t.Errorf("warnings %q do not say the start directory could not be made", w)
	}

	// In an empty root, everything is laid out, modes kept, once.
	root = t.TempDir()
	r, err = New(Options{Lab: lab, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(r.Warnings(), "\n"); !strings.Contains(w, "bin/reload.sh") || !strings.Contains(w, "etc/site.toml") {
		t.Errorf("warnings %q do not name the files made", w)
	}
	fi, err := os.Stat(filepath.Join(root, "bin", "reload.sh"))
	if err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("the script: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "conf.d", "99-extra.conf")); string(b) != "x\n" {
		t.Errorf("conf.d/99-extra.conf: %q", b)
	}
	made, err := LayOut(lab, root)
	if err != nil || len(made) != 0 {
		t.Errorf("a second lay-out made %v (%v)", made, err)
	}
	if made, _ := LayOut(lab, t.TempDir()); !slices.Equal(made, []string{"bin/reload.sh", "conf.d/99-extra.conf", "etc/site.toml"}) {
		t.Errorf("made %v", made)
	}
	// A root not there yet is the learner's to make: nothing is laid out
	// and nothing made.
	missing := filepath.Join(t.TempDir(), "gpuop")
	if made, err := LayOut(lab, missing); err != nil || len(made) != 0 {
		t.Errorf("a missing root: made %v (%v)", made, err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("the missing root was made")
	}
}
