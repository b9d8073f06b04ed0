package sandbox

import (
	"testing"
	"time"
)

// A namespace deleted again within namespaceReuse of the last time it
// was seen gone on the same sandbox waits out the rest; one never
// deleted, deleted long enough ago, or gone from another sandbox (a
// proof's other lane) does not wait.
func TestGoneLogWait(t *testing.T) {
	g := goneLog{at: map[goneKey]time.Time{}}
	const s1, s2 = "https://127.0.0.1:1", "https://127.0.0.1:2"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d := g.wait(s1, []string{"a"}, t0); d != 0 {
		t.Fatalf("never deleted: wait %v, want 0", d)
	}
	g.saw(s1, []string{"a"}, t0)
	g.saw(s1, []string{"b"}, t0.Add(2*time.Second))
	if d := g.wait(s1, []string{"a"}, t0.Add(time.Second)); d != namespaceReuse-time.Second {
		t.Fatalf("a, 1 s after gone: wait %v, want %v", d, namespaceReuse-time.Second)
	}
	// The longest wait of those deleted together.
	if d := g.wait(s1, []string{"a", "b"}, t0.Add(time.Second)); d != namespaceReuse+time.Second {
		t.Fatalf("a and b: wait %v, want %v", d, namespaceReuse+time.Second)
	}
	if d := g.wait(s1, []string{"a"}, t0.Add(namespaceReuse)); d != 0 {
		t.Fatalf("a, namespaceReuse after gone: wait %v, want 0", d)
	}
	if d := g.wait(s1, []string{"c"}, t0.Add(time.Second)); d != 0 {
		t.Fatalf("c, never deleted: wait %v, want 0", d)
	}
	if d := g.wait(s2, []string{"a"}, t0.Add(time.Second)); d != 0 {
		t.Fatalf("a of another sandbox: wait %v, want 0", d)
	}
}
