package main

// Shell completion: the completion command and the completion functions
// of flags and arguments.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/internal/kubeconfig"
)

// newCompletionCmd is `labmate completion bash|zsh|fish|powershell`, in
// place of cobra's default one whose help is English.
func newCompletionCmd(streams cli.Streams) *cobra.Command {
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
				return &cli.UsageError{Cmd: cmd, Msg: content.Msg("cli.completion_shell", "args", strings.Join(args, " "))}
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

// completeContexts lists the contexts of the kubeconfig labmate would use.
func (c *common) completeContexts(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	names, err := kubeconfig.Contexts(kubeconfig.Options{Path: c.kubeconfig})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeSteps lists the steps of the lab the command would open.
func (c *common) completeSteps(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	kit, err := c.resolveLab()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, s := range kit.Text.Steps {
		out = append(out, cobra.CompletionWithDesc(strconv.Itoa(s.Number), s.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
