package main

// Shell completion: the completion functions of the flags that need the
// shared flags (--context from --kubeconfig, --step from the lab).

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/kube"
)

// completeContexts lists the contexts of the kubeconfig labmate would use.
func (c *common) completeContexts(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	names, err := kube.Contexts(kube.Options{Path: c.kubeconfig})
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
