package cli

// The commands of the binary itself, apart from any lab: its version and
// its shell completion scripts.

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
)

// NewCompletionCmd is `labmate completion bash|zsh|fish|powershell`, in
// place of cobra's default one whose help is English.
func NewCompletionCmd(streams Streams) *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:                   "completion bash|zsh|fish|powershell",
		Short:                 content.Msg("cli.cmd.completion.short"),
		Long:                  content.Msg("cli.cmd.completion.long"),
		Example:               content.Msg("cli.cmd.completion.example"),
		ValidArgs:             shells,
		DisableFlagsInUseLine: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || !slices.Contains(shells, args[0]) {
				return &UsageError{Cmd: cmd, Msg: content.Msg("cli.completion_shell", "args", strings.Join(args, " "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(streams.Out, true)
			case "zsh":
				return root.GenZshCompletion(streams.Out)
			case "fish":
				return root.GenFishCompletion(streams.Out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(streams.Out)
			}
		},
	}
}

// NewVersionCmd is `labmate version`: injected (the release's -ldflags
// -X value, "dev" without one) or what Go recorded of a source build.
func NewVersionCmd(streams Streams, injected string) *cobra.Command {
	return NewCommand("version", "", NoArgs, func(*cobra.Command, []string) error {
		fmt.Fprintln(streams.Out, "labmate", versionString(injected, readBuildInfo))
		return nil
	})
}

var readBuildInfo = debug.ReadBuildInfo

// versionString is the injected version or, for a source build, the
// module version and the VCS revision Go recorded in the binary.
func versionString(injected string, info func() (*debug.BuildInfo, bool)) string {
	if injected != "" && injected != "dev" {
		return injected
	}
	bi, ok := info()
	if !ok {
		return "dev"
	}
	v := "dev"
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		v = mv
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		return v + " (" + content.Msg("cli.version_dirty", "rev", rev) + ")"
	}
	return v + " (" + rev + ")"
}
