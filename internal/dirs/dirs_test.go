package dirs

import (
	"path/filepath"
	"testing"
)

// Every XDG directory is found by one rule: the variable when it holds an
// absolute path, else the home directory's default; a relative value is
// ignored, as the XDG spec says.
func TestOneRuleForEveryBaseDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, tc := range []struct {
		env, fallback string
		get           func() (string, error)
	}{
		{"XDG_STATE_HOME", ".local/state/labmate", State},
		{"XDG_DATA_HOME", ".local/share/labmate", Data},
		{"XDG_CONFIG_HOME", ".config/labmate", Config},
		{"XDG_CACHE_HOME", ".cache", func() (string, error) { return Cache(), nil }},
	} {
		abs := t.TempDir()
		t.Setenv(tc.env, abs)
		got, err := tc.get()
		if want := filepath.Join(abs, filepath.Base(tc.fallback)); tc.env != "XDG_CACHE_HOME" && (err != nil || got != want) {
			t.Errorf("%s=%s: %q %v, want %q", tc.env, abs, got, err, want)
		}
		if tc.env == "XDG_CACHE_HOME" && got != abs {
			t.Errorf("%s=%s: %q, want %q", tc.env, abs, got, abs)
		}
		for _, v := range []string{"", "relative/dir"} {
			t.Setenv(tc.env, v)
			if got, err := tc.get(); err != nil || got != filepath.Join(home, tc.fallback) {
				t.Errorf("%s=%q: %q %v, want %q", tc.env, v, got, err, filepath.Join(home, tc.fallback))
			}
		}
	}
}
