package clitest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labrun/textout"
	"github.com/labhub/labmate/state"
)

// Save replaces path with text as editors save: a temp file renamed over
// it, so a watcher reads the old text or the new, never a file half
// written. (A rewrite in place may be read truncated; with the writer
// stalled past the settle window on a loaded machine, that read would
// rightly be shown as a change of its own.)
func Save(t testing.TB, path, text string) {
	t.Helper()
	tmp := path + ".tmp~"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Record decodes one line of `check --watch --json`; a line that is not
// a record, or a record without its time, fails the test.
func Record(t testing.TB, line string) textout.Record {
	t.Helper()
	var r textout.Record
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("not a JSON line: %v\n%s", err, line)
	}
	if r.At.IsZero() {
		t.Fatalf("record without a timestamp: %s", line)
	}
	return r
}

// ClassKubeconfig writes a learner's class kubeconfig (as `class init`
// writes them: learner-01 in namespace workshop) for server, and returns
// its path.
func ClassKubeconfig(t testing.TB, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "learner-01.kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: class
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: learner-01
  user:
    token: t
contexts:
- name: learner-01
  context: {cluster: class, user: learner-01, namespace: workshop}
current-context: learner-01
`, server)
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Store is the learner's state of the built-in lab id at root in dir, as
// the commands open it.
func Store(t testing.TB, dir, id, root string) *state.Store {
	t.Helper()
	lab, err := content.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	s, err := state.OpenLab(dir, cli.StateLab(lab), root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
