package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

func labWith(t *testing.T, files map[string]string) *content.Lab {
	t.Helper()
	dir := t.TempDir()
	files["lab.toml"] = "id = \"demo\"\ntitle = \"데모\"\ndefault_root = \"/root/demo\"\n"
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lab, err := content.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

// A lab's sandbox objects are its sandbox/*.yaml, in file-name order, each
// file's documents in order; a lab without the directory has none.
func TestManifestsOfReadsFilesInOrder(t *testing.T) {
	lab := labWith(t, map[string]string{
		"sandbox/20-edit.yaml": "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: dp\n  namespace: sys\n",
		"sandbox/10-start.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: sys\n---\n# nothing\n---\n" +
			"apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: dp\n  namespace: sys\n",
		"sandbox/notes.txt": "not a manifest",
	})
	ms, err := ManifestsOf(lab)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		for _, o := range m.Objects {
			got = append(got, filepath.Base(m.File)+":"+o.GetKind()+"/"+o.GetName())
		}
	}
	if want := "10-start.yaml:Namespace/sys 10-start.yaml:DaemonSet/dp 20-edit.yaml:DaemonSet/dp"; strings.Join(got, " ") != want {
		t.Errorf("objects %v, want %s", got, want)
	}
	if ms, err := ManifestsOf(labWith(t, map[string]string{})); err != nil || len(ms) != 0 {
		t.Errorf("a lab without sandbox/: %v %v", ms, err)
	}
}

// A sandbox file that is not objects is the author's to fix, named.
func TestManifestsOfRefusesWhatIsNotAnObject(t *testing.T) {
	for name, body := range map[string]string{
		"no name":  "apiVersion: v1\nkind: Namespace\n",
		"not YAML": "kind: [\n",
	} {
		_, err := ManifestsOf(labWith(t, map[string]string{"sandbox/bad.yaml": body}))
		if err == nil || !strings.Contains(err.Error(), "sandbox/bad.yaml") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
