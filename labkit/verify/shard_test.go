package verify

import "testing"

// --mutants-shard takes K/N with 1 <= K <= N; "" is no shard.
func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		k, n int
		ok   bool
	}{{"", 0, 0, true}, {"1/3", 1, 3, true}, {"3/3", 3, 3, true}, {"0/2", 0, 0, false}, {"3/2", 0, 0, false}, {"2", 0, 0, false}, {"a/b", 0, 0, false}} {
		k, n, ok := ParseShard(tc.in)
		if k != tc.k || n != tc.n || ok != tc.ok {
			t.Errorf("ParseShard(%q) = %d, %d, %v", tc.in, k, n, ok)
		}
	}
}
