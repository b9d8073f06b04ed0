package verify

import (
	"slices"
	"strings"
)

// textRows are the lab-wide checks of what the run produced: every
// message key a check asked for exists, no message a check showed left a
// placeholder unfilled (each named by its key and where its text is).
func (p *prover) textRows() []Row {
	missing := p.text.MissingKeys()
	keys := Row{Case: msg("verify.case.keys"), Expected: msg("verify.expect.keys"), OK: len(missing) == 0, Seen: msg("verify.seen.keys")}
	if len(missing) > 0 {
		keys.Seen = strings.Join(missing, ", ")
	}
	var left []string
	for key, names := range p.text.Unfilled() {
		tpl, _ := p.text.MsgTemplate(key)
		left = append(left, msg("verify.seen.unfilled", "key", key, "where", p.text.MsgWhere(key),
			"placeholders", "{"+strings.Join(names, "}, {")+"}", "text", oneLine(tpl)))
	}
	slices.Sort(left)
	holes := Row{Case: msg("verify.case.placeholders"), Expected: msg("verify.expect.placeholders"), OK: len(left) == 0,
		Seen: msg("verify.seen.placeholders")}
	if len(left) > 0 {
		holes.Seen = strings.Join(left, "; ")
	}
	return []Row{p.row(keys), p.row(holes)}
}
