package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"mvdan.cc/sh/v3/syntax"
)

// CommandLine is the command as it was run: its path and every flag the
// user gave, but the ones named in leave (what a suggestion replaces),
// shell-quoted, so that a line suggesting one more flag keeps the others
// (`labmate sandbox up --from FILE --sha256 X --lab ID`).
func CommandLine(cmd *cobra.Command, leave ...string) string {
	words := strings.Fields(cmd.CommandPath())
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if slices.Contains(leave, fl.Name) {
			return
		}
		name := "--" + fl.Name
		switch v := fl.Value.(type) {
		case pflag.SliceValue:
			for _, s := range v.GetSlice() {
				words = append(words, name, s)
			}
		default:
			switch {
			case fl.Value.Type() == "bool" && fl.Value.String() == "true":
				words = append(words, name)
			case fl.Value.Type() == "bool":
				words = append(words, name+"="+fl.Value.String())
			default:
				words = append(words, name, fl.Value.String())
			}
		}
	})
	for i, w := range words {
		if q, err := syntax.Quote(w, syntax.LangPOSIX); err == nil {
			words[i] = q
		}
	}
	return strings.Join(words, " ")
}
