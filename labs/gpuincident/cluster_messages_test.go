package gpuincident

import (
	"regexp"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/keyscan"
	"github.com/labhub/labmate/observe"
)

// Every message key this lab's checks use exists, in the lab's messages
// or the shared ones: each string literal of the package's sources shaped
// like a key of theirs, and the keys built at run time.
func TestMessageKeysExist(t *testing.T) {
	lab, err := content.Load(ID)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for k := range keyscan.Keys(t, ".", regexp.MustCompile(`^(files|report|cluster)\.[a-z0-9_.]+[a-z0-9_]$`)) {
		keys[k] = true
	}
	for _, s := range []string{"condition", "event", "witness"} {
		keys["cluster.source."+s] = true
	}
	for _, s := range []observe.ClusterState{observe.ClusterOff, observe.ClusterConnecting, observe.ClusterSynced, observe.ClusterUnreachable, observe.ClusterError} {
		keys["cluster.state."+string(s)] = true
	}
	if len(keys) < 200 {
		t.Fatalf("found only %d keys: the scan is broken", len(keys))
	}
	for k := range keys {
		if !lab.HasMsg(k) {
			t.Errorf("message %q is in neither content/labs/gpu-incident/messages*.toml nor content/*.toml", k)
		}
	}
}
