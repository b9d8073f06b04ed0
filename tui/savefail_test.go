package tui

import (
	"errors"
	"strings"
	"testing"
)

// A hint opened or a page visited that the learner's state could not
// keep is said in a toast, never dropped.
func TestAFailedProgressSaveIsShown(t *testing.T) {
	full := errors.New("no space left on device")
	for _, tc := range []struct {
		name string
		set  func(*Options)
		keys []string
	}{
		{"page", func(o *Options) { o.OnPage = func(int) error { return full } }, []string{"1"}},
		{"hint", func(o *Options) { o.OnProgress = func(int, int, bool) error { return full } }, []string{"1", "h"}},
	} {
		m := press(t, testModel(t, 80, 30, tc.set), tc.keys...)
		if m.foot.toast == nil || !strings.Contains(m.foot.toast.text, full.Error()) ||
			!strings.Contains(m.foot.toast.text, "저장하지 못했습니다") {
			t.Errorf("%s: a failed save left toast %+v", tc.name, m.foot.toast)
		}
	}
}
