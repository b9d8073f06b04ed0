package sandbox

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

// ForLab takes the lab's topology and ID; Ready names the kubeconfig and
// context of the sandbox it describes, and a named sandbox's differ from
// the default one's.
func TestForLabAndReady(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	opts, err := Options{Name: "labmate-forlab-test"}.ForLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Lab != lab.ID || len(opts.Nodes) == 0 {
		t.Errorf("ForLab: lab %q, %d nodes", opts.Lab, len(opts.Nodes))
	}
	named, plain := opts.Ready(), Options{}.Ready()
	if !strings.Contains(named, Kubeconfig(opts)) || !strings.Contains(named, Context(opts)) || named == plain {
		t.Errorf("Ready of a named sandbox:\n%s\nof the default one:\n%s", named, plain)
	}
}
