package plain

import (
	"regexp"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/keyscan"
)

// Every sentence plain mode asks for exists, and every command help
// lists has its words.
func TestMessageKeysExist(t *testing.T) {
	keys := keyscan.Keys(t, ".", regexp.MustCompile(`^(plain|tui)\.[a-z0-9_.]+[a-z0-9_]$`))
	if len(keys) < 30 {
		t.Errorf("found only %d keys: is the pattern still right?", len(keys))
	}
	for k := range keys {
		if !content.HasMsg(k) {
			t.Errorf("plain mode asks for %s, which content does not have", k)
		}
	}
	for _, a := range commandOrder {
		if len(aliases[a]) == 0 {
			t.Errorf("command %s has no words", a)
		}
	}
}
