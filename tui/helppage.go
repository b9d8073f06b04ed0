package tui

import (
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/keys"
)

// help is the full help: every action of the key map km with all its
// keys, by group, generated from the same table as the help line; the
// replay's group only while a replay runs.
func (c canvas) help(km keys.KeyMap, replay bool) []block {
	out := []block{c.section(content.Msg("tui.help.title"))}
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
	col = min(col, c.width/3)
	indent := strings.Repeat(" ", col+3)
	for _, g := range keys.Groups {
		if g == keys.GroupReplay && !replay {
			continue // those keys do nothing outside a running replay
		}
		out = append(out, c.section(keys.GroupTitle(g)))
		var lines []string
		for _, s := range keys.Specs {
			if s.Group != g {
				continue
			}
			n := names[s.Name]
			if len(n) > col {
				lines = append(lines, " "+c.th.Key.Render(n))
				n = ""
			}
			first := " " + c.th.Key.Render(n) + strings.Repeat(" ", col-len(n)+2)
			lines = append(lines, page.Wrap(s.Desc(), c.width-1, first, indent)...)
		}
		out = append(out, block{lines: lines})
	}
	return out
}
