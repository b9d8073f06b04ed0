package classlab

import (
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

// --lab: none is every built-in lab, several must each be built in, and
// what is neither is refused in Korean, naming it.
func TestLabs(t *testing.T) {
	if ids, ship, err := Labs(nil); err != nil || ship != nil || !slices.Equal(ids, content.IDs()) {
		t.Errorf("none: %v %v %v", ids, ship, err)
	}
	if ids, ship, err := Labs(content.IDs()); err != nil || ship != nil || !slices.Equal(ids, content.IDs()) {
		t.Errorf("all built in: %v %v %v", ids, ship, err)
	}
	want := content.Msg("class.cli.labs_builtin", "lab", "no-such-lab")
	if _, _, err := Labs([]string{content.IDs()[0], "no-such-lab"}); err == nil || err.Error() != want {
		t.Errorf("several with an unknown one: %v, want %q", err, want)
	}
	if _, _, err := Labs([]string{"no-such-lab"}); err == nil || !strings.HasPrefix(err.Error(), strings.SplitN(content.Msg("class.cli.lab_refused", "lab", "no-such-lab", "err", "X"), "X", 2)[0]) {
		t.Errorf("one unknown: %v", err)
	}
}
