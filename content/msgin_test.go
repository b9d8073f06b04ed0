package content

import (
	"testing"

	"github.com/labhub/labmate/internal/testfiles"
)

// A lab's message may name a path under the lab root as {{ROOT}}: it
// reads as the root in use, and a value filled in stays as it was given.
func TestMsgInFillsTheRoot(t *testing.T) {
	l, err := LoadDir(testfiles.Dir(t, map[string]string{
		"lab.toml":      "id = \"root-msg\"\ntitle = \"루트\"\nintro = \"intro.md\"\ndefault_root = \"~/root-msg\"\n",
		"intro.md":      "# 루트\n",
		"messages.toml": "[root-msg]\nlook = \"{{ROOT}}/out/merge.txt 를 보세요 (읽은 값: {got})\"\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.MsgIn("/home/learner/root-msg", "root-msg.look", "got", "{{ROOT}}"), "/home/learner/root-msg/out/merge.txt 를 보세요 (읽은 값: {{ROOT}})"; got != want {
		t.Errorf("MsgIn = %q, want %q", got, want)
	}
	if got := l.Msg("root-msg.look", "got", "x"); got != "{{ROOT}}/out/merge.txt 를 보세요 (읽은 값: x)" {
		t.Errorf("Msg, no root: %q", got)
	}
	var none *Lab
	if got, want := none.MsgIn("/r", "labkit.needs", "check", "x"), Msg("labkit.needs", "check", "x"); got != want {
		t.Errorf("a nil lab's MsgIn = %q, want %q", got, want)
	}
}
