package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/tui/keys"
)

// Every Korean string the TUI asks for exists in content/ui-tui.toml: a
// missing one would show its key on screen.
func TestMessageKeysExist(t *testing.T) {
	lit := regexp.MustCompile(`"(tui\.[a-z_]+(?:\.[a-z_]+)+)"`)
	files, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("*/*.go")
	keysSeen := 0
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			keysSeen++
			if !content.HasMsg(m[1]) {
				t.Errorf("%s asks for %s, which content does not have", f, m[1])
			}
		}
	}
	if keysSeen < 40 {
		t.Errorf("found only %d message keys: is the pattern still right?", keysSeen)
	}
	// Keys built at run time.
	var dynamic []string
	for _, st := range []observe.ClusterState{observe.ClusterOff, observe.ClusterConnecting, observe.ClusterSynced, observe.ClusterUnreachable, observe.ClusterError} {
		dynamic = append(dynamic, "tui.cluster."+string(st))
	}
	for _, s := range keys.Specs {
		dynamic = append(dynamic, "tui.key."+s.Name)
	}
	for _, st := range []string{"passed", "failed", "waiting", "unknown", "error"} {
		dynamic = append(dynamic, "status."+st)
	}
	for _, k := range dynamic {
		if !content.HasMsg(k) {
			t.Errorf("no message %s", k)
		}
	}
}
