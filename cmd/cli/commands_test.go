package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	info := func(main string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: main}, Settings: settings}, true
		}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123"}
	dirty := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	for _, tc := range []struct {
		injected string
		info     func() (*debug.BuildInfo, bool)
		want     string
	}{
		{"v1.2.3", info("(devel)", rev), "v1.2.3"},
		{"dev", info("(devel)", rev), "dev (0123456789ab)"},
		{"dev", info("(devel)", rev, dirty), "dev (0123456789ab, 커밋되지 않은 변경 포함)"},
		{"dev", info("v0.4.0"), "v0.4.0"},
		{"dev", func() (*debug.BuildInfo, bool) { return nil, false }, "dev"},
	} {
		if got := versionString(tc.injected, tc.info); got != tc.want {
			t.Errorf("versionString(%q) = %q, want %q", tc.injected, got, tc.want)
		}
	}
}
