// Package termtexttest is for tests of the places text from outside
// labmate is drawn: a hostile text and what the learner must see of it.
package termtexttest

import (
	"regexp"
	"strings"
	"testing"
)

// Hostile is what a lab author, a learner's file, a cluster object, a
// script or a class record could carry to take the learner's terminal:
// a window title (OSC 2), a clipboard write (OSC 52, "PWNED-CLIP") and
// a screen clear.
const Hostile = "A\x1b]2;PWNED-TITLE\x07B\x1b]52;c;UFdORUQtQ0xJUA==\x07C\x1b[2JD"

// Shown is Hostile as the learner must see it: every escape visible,
// none sent.
const Shown = "A␛]2;PWNED-TITLE␇B␛]52;c;UFdORUQtQ0xJUA==␇C␛[2JD"

// sgr is the one kind of sequence labmate's own styling makes.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// AssertOnlyStyling fails unless every control character of the frame v
// but newline is part of labmate's own styling (SGR), and each of shown
// is in it.
func AssertOnlyStyling(t testing.TB, v string, shown ...string) {
	t.Helper()
	rest := sgr.ReplaceAllString(v, "")
	for _, r := range rest {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) {
			t.Fatalf("the frame sends control %U that is not styling:\n%q", r, v)
		}
	}
	for _, s := range shown {
		if !strings.Contains(rest, s) {
			t.Errorf("escaped text %q not in the frame:\n%s", s, rest)
		}
	}
}
