package content

import "testing"

// An author's text may use newline, tab and CRLF line ends; any other
// control character is found at its line and column.
func TestFirstControl(t *testing.T) {
	for _, tc := range []struct {
		text      string
		r         rune
		line, col int
	}{
		{"plain\r\n\ttab\n한글", 0, 0, 0},
		{"a\nb\x1b]2;x\x07", 0x1b, 2, 2},
		{"lone\rcr", '\r', 1, 5},
		{"가나\u009b2J", 0x9b, 1, 3},
		{"\x7f", 0x7f, 1, 1},
	} {
		r, line, col, ok := firstControl(tc.text)
		if ok != (tc.r != 0) || r != tc.r || line != tc.line || col != tc.col {
			t.Errorf("firstControl(%q) = %U %d:%d %v, want %U %d:%d", tc.text, r, line, col, ok, tc.r, tc.line, tc.col)
		}
	}
}
