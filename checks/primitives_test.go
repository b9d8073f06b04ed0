package checks

import (
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/keyscan"
	"github.com/labhub/labmate/observe"
)

// A key thousands of parts deep costs the line index no more than its
// length: the index records at most maxKeyDepth prefixes of each key.
func TestKeyLinesDeepKeyIsLinear(t *testing.T) {
	measure := func(depth int) uint64 {
		key := strings.Repeat("a.", depth) + "a = 1\n"
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		lines := keyLines([]byte(key))
		runtime.ReadMemStats(&after)
		if len(lines) != maxKeyDepth || lines["a"] != 1 {
			t.Fatalf("depth %d: %d paths recorded", depth, len(lines))
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := measure(1000), measure(10000)
	// Ten times deeper: about ten times the bytes, never a hundred.
	if large > 20*small+1<<20 {
		t.Errorf("depth 1000: %d bytes, depth 10000: %d bytes", small, large)
	}
}

// The cap: six problems worded, the rest counted; the line count always
// comes first.
func TestParseKeyValuesCapsProblems(t *testing.T) {
	_, problems := ParseKeyValues(strings.Repeat("noise\n", 50), []string{"A", "B"}, false)
	got := problems.String()
	parts := strings.Split(got, "; ")
	// count + 6 worded + "more"
	if len(parts) != 1+maxProblems+1 {
		t.Fatalf("%d parts: %q", len(parts), got)
	}
	if parts[0] != "50줄입니다(2줄이어야 합니다)" {
		t.Errorf("first %q", parts[0])
	}
	// 50 lines without '=', 2 missing keys: 52 problems, 6 worded.
	if parts[len(parts)-1] != "그 밖에 46가지" {
		t.Errorf("last %q", parts[len(parts)-1])
	}
}

// Every message key the primitives use is a shared one (content/*.toml):
// they serve every lab.
func TestMessageKeysAreShared(t *testing.T) {
	keys := keyscan.Keys(t, ".", regexp.MustCompile(`^(files|report|cluster|labkit)\.[a-z0-9_.]+[a-z0-9_]$`))
	for k, at := range keys {
		if !content.HasMsg(k) {
			t.Errorf("%s: message %q is not in content/*.toml", at, k)
		}
	}
	for _, s := range []observe.ClusterState{observe.ClusterOff, observe.ClusterConnecting, observe.ClusterSynced, observe.ClusterUnreachable, observe.ClusterError} {
		if !content.HasMsg("cluster.state." + string(s)) {
			t.Errorf("no shared text for cluster state %s", s)
		}
	}
	if len(keys) < 80 {
		t.Fatalf("found only %d keys: the scan is broken", len(keys))
	}
}
