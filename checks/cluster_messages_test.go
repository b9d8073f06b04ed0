package checks

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// Every message key the cluster checks use exists in content.
func TestClusterMessageKeysExist(t *testing.T) {
	if _, err := content.Load(content.DefaultLabID); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("cluster_*.go")
	// problemList.add takes a key like msg.
	re := regexp.MustCompile(`(?:msg|\.add)\("(cluster\.[a-z0-9_.]+)"`)
	keys := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			if m[1][len(m[1])-1] != '.' {
				keys[m[1]] = true
			}
		}
	}
	// Keys built at run time.
	for _, s := range []string{"condition", "event", "witness"} {
		keys["cluster.source."+s] = true
	}
	for _, s := range []observe.ClusterState{observe.ClusterOff, observe.ClusterConnecting, observe.ClusterSynced, observe.ClusterUnreachable, observe.ClusterError} {
		keys["cluster.state."+string(s)] = true
	}
	if len(keys) < 100 {
		t.Fatalf("found only %d keys: the scan is broken", len(keys))
	}
	for k := range keys {
		if !content.HasMsg(k) {
			t.Errorf("message %q is missing from content/gpu-incident/messages-cluster.toml", k)
		}
	}
}
