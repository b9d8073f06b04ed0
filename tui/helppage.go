package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/keys"
)

// help is the full help: every key km's FullHelp lists, a column per
// group of keys.Groups (a column with no keys, such as the replay's
// outside a replay, is left out), each action with all its keys and its
// Korean help, generated from the same table as the help line.
func (c canvas) help(km help.KeyMap) []block {
	out := []block{c.section(content.Msg("tui.help.title"))}
	cols := km.FullHelp()
	col := 0
	for _, bs := range cols {
		for _, b := range bs {
			col = max(col, len(b.Help().Key))
		}
	}
	col = min(col, c.width/3)
	indent := strings.Repeat(" ", col+3)
	for g, bs := range cols {
		if len(bs) == 0 {
			continue
		}
		out = append(out, c.section(keys.GroupTitle(keys.Group(g))))
		var lines []string
		for _, b := range bs {
			n := b.Help().Key
			if len(n) > col {
				lines = append(lines, " "+c.th.Key.Render(n))
				n = ""
			}
			first := " " + c.th.Key.Render(n) + strings.Repeat(" ", col-len(n)+2)
			lines = append(lines, page.Wrap(b.Help().Desc, c.width-1, first, indent)...)
		}
		out = append(out, block{lines: lines})
	}
	return out
}
