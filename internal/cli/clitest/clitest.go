// Package clitest runs a command package's commands in a test as the
// labmate binary runs its tree: Korean help and errors, the exit code.
package clitest

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/internal/cli"
)

// Run builds a command with newCmd on fresh streams (no input), makes it
// the root of a tree (cli.Root) and runs args on it (cli.Execute).
func Run(t testing.TB, newCmd func(cli.Streams) *cobra.Command, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	streams := cli.Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	root := newCmd(streams)
	cli.Root(root, streams)
	code = cli.Execute(root, args, streams)
	return code, out.String(), errOut.String()
}
