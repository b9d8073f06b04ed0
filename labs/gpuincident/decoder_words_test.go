package gpuincident

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/internal/textguard"
)

// No learner reads a decoder's English or Go: every broken file of the
// fixtures, put at every lab path of its kind, fails with messages free
// of "cannot unmarshal", Go type names and parser phrases (those are only
// what labmate observed).
func TestNoDecoderWordsReachLearners(t *testing.T) {
	manifests := []string{runtimeClassPath, gpuPodPath, timeSlicingPath, toolkitDSPath}
	configs := []string{mainConfigPath, dropInPath}
	var checked int
	say := func(where string, ev checks.StepEval) {
		for _, r := range ev.Checks {
			if r.Status == checks.Passed {
				continue
			}
			checked++
			if bad := textguard.DecoderWords.FindString(r.Message); bad != "" {
				t.Errorf("%s: %s says the decoder's %q: %s", where, r.ID, bad, r.Message)
			}
		}
	}
	yamls, _ := filepath.Glob(filepath.Join(clusterFixtures, "*", "*.yaml"))
	for _, fx := range yamls {
		rel, _ := filepath.Rel(clusterFixtures, fx)
		for _, path := range manifests {
			c := newLabCluster(t)
			c.allStages()
			c.file(path, rel)
			for _, s := range steps()[4:] {
				say(rel+" at "+path, c.eval(s))
			}
		}
	}
	tomls, _ := filepath.Glob(filepath.Join("testdata", "files", "*", "*.toml"))
	for _, fx := range tomls {
		b, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range configs {
			root := labRoot(t, nil)
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(path)), b, 0o644); err != nil {
				t.Fatal(err)
			}
			snap := observeRoot(t, root)
			for _, s := range steps()[:3] {
				say(strings.TrimPrefix(fx, "testdata/")+" at "+path, evalStep(t, s, root, snap))
			}
		}
	}
	if len(yamls) < 10 || len(tomls) < 10 || checked < 100 {
		t.Fatalf("%d YAML and %d TOML fixtures, %d failing checks read: the walk did not exercise the decoders", len(yamls), len(tomls), checked)
	}
}
