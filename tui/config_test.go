package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/config"
	"github.com/labhub/labmate/tui/internal/fixture"
)

// The config file's settings reach the TUI: rebinding works, a refused
// binding and the file's own warnings show as a notice, a theme flag
// wins over the file.
func TestConfigReachesTheTUI(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(p, []byte("theme = \"light\"\nclipboard = \"off\"\nbogus = 1\n[keys]\nnext = \"l\"\nhint = \"?\"\n"), 0o644)
	cfg, warns := config.Load(p)
	if len(warns) != 1 {
		t.Fatalf("file warnings: %q", warns)
	}
	opts := WithConfig(Options{Lab: fixture.Lab(), Colors: ColorsNone}, cfg, warns)
	if opts.Theme != "light" || opts.Clipboard != "off" {
		t.Errorf("opts: theme %q clipboard %q", opts.Theme, opts.Clipboard)
	}
	if flagged := WithConfig(Options{Theme: "dark"}, cfg, nil); flagged.Theme != "dark" {
		t.Error("the file overrode a theme flag")
	}

	m := New(opts)
	if m.th.Name != "light" {
		t.Errorf("theme %q", m.th.Name)
	}
	m = send(t, m, sizeMsg(80, 24))
	m = send(t, m, reportOf(m, fixture.Report(fixture.Lab())))
	for _, cmd := range runCmd(m.Init()) {
		m = send(t, m, cmd)
	}
	if m.foot.toast == nil || !strings.Contains(m.foot.toast.text, "2건") {
		t.Fatalf("no notice toast: %+v", m.foot.toast)
	}
	m = press(t, m, "G")
	if s := screen(m); !strings.Contains(s, "bogus") || !strings.Contains(s, "hint") {
		t.Fatalf("notices not listed on the introduction:\n%s", s)
	}
	m = press(t, m, "l")
	if m.page != 1 {
		t.Errorf("rebound next (l) did not move: page %d", m.page)
	}
	m = press(t, m, "h")
	if m.hints.progress[1].Seen != 1 {
		t.Error("hint kept its default key after a refused rebinding")
	}
	if m.keys.Copy.Enabled() {
		t.Error("copy offered with clipboard = off")
	}
}
