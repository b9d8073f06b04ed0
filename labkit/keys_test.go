package labkit

import (
	"regexp"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/keyscan"
)

// Every message key of the kit's own (labkit.*) is a shared text; the
// keys a lab's checks name are the lab's, proven by lab verify.
func TestMessageKeysExist(t *testing.T) {
	keys := keyscan.Keys(t, ".", regexp.MustCompile(`^labkit\.[a-z0-9_.]+[a-z0-9_]$`))
	for k, at := range keys {
		if !content.HasMsg(k) {
			t.Errorf("%s: message %q is not in content/*.toml", at, k)
		}
	}
	if len(keys) < 40 {
		t.Fatalf("found only %d keys: the scan is broken", len(keys))
	}
}
