package page

import (
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
)

// style is the markdown style for a look: glamour's own dark or light
// style (or its ASCII style without colour) with every ambiguous-width
// glyph replaced, so rendered text measures the same in every terminal.
// It is decided here, never by glamour's WithAutoStyle, which would ask
// the terminal while the TUI runs.
func style(l Look) ansi.StyleConfig {
	var s ansi.StyleConfig
	switch {
	case l.NoColor():
		s = styles.ASCIIStyleConfig
	case l.Light:
		s = styles.LightStyleConfig
	default:
		s = styles.DarkStyleConfig
	}
	// The pane is narrow; one column of margin is enough.
	s.Document.Margin = uintPtr(1)
	s.Item.BlockPrefix = "- "
	s.BlockQuote.IndentToken = strPtr("| ")
	s.Task.Ticked = "[x] "
	s.Task.Unticked = "[ ] "
	s.ImageText.Format = "Image: {{.text}}"
	s.HorizontalRule.Format = "\n--------\n"
	s.Table.CenterSeparator = strPtr("+")
	s.Table.ColumnSeparator = strPtr("|")
	s.Table.RowSeparator = strPtr("-")
	s.DefinitionDescription.BlockPrefix = "\n* "
	return s
}

func uintPtr(u uint) *uint    { return &u }
func strPtr(s string) *string { return &s }
