package verify

import (
	"slices"
	"strings"
)

// textRows are the lab-wide checks of what the run produced: every
// message key a check asked for exists, no message left a placeholder.
// The run has ended: its tap no longer writes the messages.
func (p *prover) textRows() []Row {
	missing := p.text.MissingKeys()
	keys := Row{Case: msg("verify.case.keys"), Expected: msg("verify.expect.keys"), OK: len(missing) == 0, Seen: msg("verify.seen.keys")}
	if len(missing) > 0 {
		keys.Seen = strings.Join(missing, ", ")
	}
	var left []string
	for m := range p.seen.all {
		if l := leftoverMsg().FindString(m); l != "" {
			left = append(left, l+" ← "+oneLine(m))
		}
	}
	slices.Sort(left)
	holes := Row{Case: msg("verify.case.placeholders"), Expected: msg("verify.expect.placeholders"), OK: len(left) == 0,
		Seen: msg("verify.seen.placeholders", "n", len(p.seen.all))}
	if len(left) > 0 {
		holes.Seen = strings.Join(left, "; ")
	}
	return []Row{p.row(keys), p.row(holes)}
}
