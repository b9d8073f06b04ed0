package verify

import (
	"regexp"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/keyscan"
)

// Every message key the verifier names is a shared text.
func TestMessageKeysExist(t *testing.T) {
	keys := keyscan.Keys(t, ".", regexp.MustCompile(`^(verify|status|sandbox)\.[a-z0-9_.]+[a-z0-9_]$`))
	delete(keys, "verify.sh")   // the scripts' name in shell syntax errors
	delete(keys, "verify.toml") // the file
	for k, at := range keys {
		if !content.HasMsg(k) {
			t.Errorf("%s: message %q is not in content/*.toml", at, k)
		}
	}
	if len(keys) < 50 {
		t.Fatalf("found only %d keys: the scan is broken", len(keys))
	}
}
