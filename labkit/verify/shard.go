package verify

import (
	"strconv"
	"strings"
)

// ParseShard reads --mutants-shard K/N (1 <= K <= N); "" is no shard.
func ParseShard(s string) (k, n int, ok bool) {
	if s == "" {
		return 0, 0, true
	}
	a, b, found := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !found || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, false
	}
	return k, n, true
}
