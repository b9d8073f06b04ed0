package checks

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// Every status has a glyph of its own, and each takes one cell whether or
// not the terminal draws East-Asian-ambiguous characters wide, by every
// measure labmate's media use (go-runewidth both ways, the renderer's).
func TestGlyphsAreOneCellAndDistinct(t *testing.T) {
	narrow := &runewidth.Condition{EastAsianWidth: false}
	wide := &runewidth.Condition{EastAsianWidth: true}
	seen := map[string]Status{}
	for _, st := range []Status{Passed, Failed, Waiting, Unknown, Error} {
		g := st.Glyph()
		if other, dup := seen[g]; dup {
			t.Errorf("%s and %s share the glyph %q", st, other, g)
		}
		seen[g] = st
	}
	if g := Status("bogus").Glyph(); g != Unknown.Glyph() {
		t.Errorf("an unknown status is marked %q, want the unknown glyph %q", g, Unknown.Glyph())
	}
	for g := range seen {
		if n, w, a := narrow.StringWidth(g), wide.StringWidth(g), ansi.StringWidth(g); n != 1 || w != 1 || a != 1 {
			t.Errorf("%q (U+%04X): width %d with ambiguous=1, %d with ambiguous=2, %d for the renderer", g, []rune(g)[0], n, w, a)
		}
	}
}

func TestPlaceOfReadsWhereBack(t *testing.T) {
	for where, want := range map[string]Place{
		Where("etc/a.toml", 6):                      {File: "etc/a.toml", Line: 6},
		"etc/containerd/conf.d/99-nvidia.toml:6:17": {File: "etc/containerd/conf.d/99-nvidia.toml", Line: 6, Col: 17},
		"k8s/pod.yaml:12:3":                         {File: "k8s/pod.yaml", Line: 12, Col: 3},
	} {
		if got, ok := PlaceOf(where); !ok || got != want {
			t.Errorf("PlaceOf(%q) = %+v %v, want %+v", where, got, ok, want)
		}
	}
	for _, where := range []string{"", "etc/a.toml", "gpu-lab/Pod/cuda-probe", ":6", "a.toml:0", "a.toml:-1", "a.toml:x", "a.toml:+3"} {
		if got, ok := PlaceOf(where); ok {
			t.Errorf("PlaceOf(%q) = %+v, want no place", where, got)
		}
	}
}
