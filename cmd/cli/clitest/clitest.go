// Package clitest runs a command package's commands in a test as the
// labmate binary runs its tree: the shared flags and one factory, Korean
// help and errors, the exit code.
package clitest

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
)

// Run builds a command with newCmd on fresh streams (no input) and a
// factory of the shared flags (--lab, --root, --kubeconfig, ...), makes
// it the root of a tree as cmd/labmate does and runs args on it
// (cli.Execute).
func Run(t testing.TB, newCmd func(*cli.Factory, cli.Streams) *cobra.Command, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	streams := cli.Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	labs, cluster := &cli.LabFlags{}, &cli.ClusterFlags{}
	f := cli.NewFactory(labs, cluster, "test")
	defer f.Close()
	root := newCmd(f, streams)
	labs.AddFlags(root)
	cluster.AddFlags(root)
	root.PersistentPreRunE = f.Begin
	cli.Root(root, streams)
	code = cli.Execute(root, args, streams)
	return code, out.String(), errOut.String()
}
