package tui

import (
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/tui/keys"
)

// helpBlocks is the full help: every action of the key map with all its
// keys, by group, generated from the same table as the help line.
func (m Model) helpBlocks() []block {
	out := []block{m.sectionBlock(content.Msg("tui.help.title"))}
	km := m.keys
	names := map[string]string{}
	col := 0
	for _, s := range keys.Specs {
		b := km.Binding(s.Name)
		n := b.Help().Key
		if s.Name != "jump" {
			var ks []string
			for _, k := range b.Keys() {
				ks = append(ks, keys.Display(k))
			}
			n = strings.Join(ks, "/")
		}
		names[s.Name] = n
		col = max(col, len(n))
	}
	col = min(col, m.width/3)
	indent := strings.Repeat(" ", col+3)
	for _, g := range keys.Groups {
		if g == keys.GroupReplay && !m.replay.running() {
			continue // those keys do nothing outside a running replay
		}
		out = append(out, m.sectionBlock(keys.GroupTitle(g)))
		var lines []string
		for _, s := range keys.Specs {
			if s.Group != g {
				continue
			}
			n := names[s.Name]
			if len(n) > col {
				lines = append(lines, " "+m.th.Key.Render(n))
				n = ""
			}
			first := " " + m.th.Key.Render(n) + strings.Repeat(" ", col-len(n)+2)
			lines = append(lines, wrap(s.Desc(), m.width-1, first, indent)...)
		}
		out = append(out, block{lines: lines})
	}
	return out
}
