package cli

// Help: Korean templates and flag listings in place of cobra's English
// ones, and the help command.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/labhub/labmate/content"
)

// localize gives every command of the tree a Korean help flag (cobra's
// default says "help for X") and a usage line without cobra's English
// "[flags]".
func localize(cmd *cobra.Command) {
	cmd.DisableFlagsInUseLine = true
	if cmd.Flags().Lookup("help") == nil {
		cmd.Flags().BoolP("help", "h", false, content.Msg("cli.flag.help"))
	}
	for _, sub := range cmd.Commands() {
		localize(sub)
	}
}

// FlagsUse is "[플래그]" for a command's usage line.
func FlagsUse() string { return "[" + content.Msg("cli.help.flags_word") + "]" }

const metavarKey = "labmate_metavar"

// Metavars names the value of each flag in help (`--root DIR`).
func Metavars(fs *pflag.FlagSet, names map[string]string) {
	for flag, name := range names {
		_ = fs.SetAnnotation(flag, metavarKey, []string{name})
	}
}

func metavar(f *pflag.Flag) string {
	if v := f.Annotations[metavarKey]; len(v) > 0 {
		return v[0]
	}
	return typeMetavar(f)
}

// typeMetavar names a flag's value by its type.
func typeMetavar(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "bool":
		return ""
	case "int":
		return "N"
	case "duration":
		return content.Msg("cli.help.duration")
	}
	return content.Msg("cli.help.value")
}

// flagRow is one flag as help lists it: the flag, its words and the
// name of its value.
type flagRow struct {
	f              *pflag.Flag
	usage, metavar string
}

// localFlags are cmd's own flags and the root's flags it reads with a
// meaning of its own (Reads), by name.
func localFlags(cmd *cobra.Command) []flagRow {
	var rows []flagRow
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) { rows = append(rows, flagRow{f, f.Usage, metavar(f)}) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if usage, mv, ok := readsOf(cmd, f); ok {
			if mv == "" {
				mv = typeMetavar(f)
			}
			rows = append(rows, flagRow{f, usage, mv})
		}
	})
	slices.SortStableFunc(rows, func(a, b flagRow) int { return strings.Compare(a.f.Name, b.f.Name) })
	return rows
}

// inheritedFlags are the flags cmd inherits and gives no meaning of its
// own.
func inheritedFlags(cmd *cobra.Command) []flagRow {
	var rows []flagRow
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if _, _, ok := readsOf(cmd, f); !ok {
			rows = append(rows, flagRow{f, f.Usage, metavar(f)})
		}
	})
	return rows
}

// visible are the rows help shows (hidden flags are not).
func visible(rows []flagRow) []flagRow {
	return slices.DeleteFunc(rows, func(r flagRow) bool { return r.f.Hidden })
}

// flagUsages renders flags in Korean, one a line, replacing pflag's
// English "(default ...)".
func flagUsages(rows []flagRow) string {
	type line struct{ left, right string }
	var lines []line
	width := 0
	for _, r := range visible(rows) {
		f := r.f
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		if r.metavar != "" {
			left += " " + r.metavar
		}
		right := r.usage
		if def := flagDefault(f); def != "" {
			right += " " + content.Msg("cli.help.default", "value", def)
		}
		lines = append(lines, line{left, right})
		width = max(width, runewidth.StringWidth(left))
	}
	var b strings.Builder
	for _, l := range lines {
		pad := strings.Repeat(" ", width-runewidth.StringWidth(l.left))
		fmt.Fprintf(&b, "%s%s   %s\n", l.left, pad, l.right)
	}
	return strings.TrimRight(b.String(), "\n")
}

// flagDefault is a flag's default as help shows it, or "" when it is the
// type's zero value or already spelled out in the usage text.
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if f.Value.Type() == "duration" {
		if d, err := time.ParseDuration(f.DefValue); err == nil {
			return content.Duration(d)
		}
	}
	if f.Name == "help" {
		return ""
	}
	return f.DefValue
}

// useLine is cobra's UseLine without its English "[flags]".
func useLine(cmd *cobra.Command) string {
	line := cmd.UseLine()
	if cmd.HasAvailableSubCommands() && !cmd.Runnable() {
		line = cmd.CommandPath() + " " + content.Msg("cli.help.command_arg")
	}
	return line
}

func init() {
	cobra.AddTemplateFunc("msg", func(key string, kv ...any) string { return content.Msg(key, kv...) })
	cobra.AddTemplateFunc("koLocalFlags", func(cmd *cobra.Command) string { return flagUsages(localFlags(cmd)) })
	cobra.AddTemplateFunc("koInheritedFlags", func(cmd *cobra.Command) string { return flagUsages(inheritedFlags(cmd)) })
	cobra.AddTemplateFunc("hasLocalFlags", func(cmd *cobra.Command) bool { return len(visible(localFlags(cmd))) > 0 })
	cobra.AddTemplateFunc("hasInheritedFlags", func(cmd *cobra.Command) bool { return len(visible(inheritedFlags(cmd))) > 0 })
	cobra.AddTemplateFunc("useLine", useLine)
	// A double-click on labmate.exe in Explorer would otherwise print
	// cobra's English explanation.
	cobra.MousetrapHelpText = ""
}

const helpTemplate = `{{with (or .Long .Short)}}{{. | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}`

const usageTemplate = `{{msg "cli.help.usage"}}{{if .Runnable}}
  {{useLine .}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} {{msg "cli.help.command_arg"}}{{end}}{{if .HasExample}}

{{msg "cli.help.examples"}}
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

{{msg "cli.help.commands"}}{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if hasLocalFlags .}}

{{msg "cli.help.flags"}}
{{koLocalFlags .}}{{end}}{{if hasInheritedFlags .}}

{{msg "cli.help.global_flags"}}
{{koInheritedFlags .}}{{end}}{{if .HasAvailableSubCommands}}

{{msg "cli.help.more_cmd" "cmd" .CommandPath}}{{end}}
`

// newHelpCmd replaces cobra's English help command.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [" + content.Msg("cli.help.command_word") + "]",
		Short: content.Msg("cli.cmd.help.short"),
		Long:  content.Msg("cli.cmd.help.long"),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return &UsageError{Cmd: c.Root(), Msg: content.Msg("cli.unknown_command", "cmd", strings.Join(args, " "))}
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}
