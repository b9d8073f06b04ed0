package page

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// breakLines wraps s at blanks (long words are split) so that every line,
// with a spare cell per East-Asian-ambiguous character, fits limit. Wide
// characters are never split; width is measured per grapheme, as the
// renderer measures it. ansi.Wrap alone lets a hyphen it breaks after
// pass the limit, and knows no spare cells: lines still too wide are
// wrapped again, narrower (rarely more than once).
func breakLines(s string, limit int) []string {
	avail := max(limit, 1)
	for {
		lines := strings.Split(ansi.Wrap(s, avail, ""), "\n")
		over := 0
		for _, l := range lines {
			over = max(over, Cells(l)-limit)
		}
		if over <= 0 || avail == 1 {
			return lines
		}
		avail = max(avail-over, 1)
	}
}
