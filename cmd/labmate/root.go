package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/catchupcmd"
	"github.com/labhub/labmate/cmd/cli/checkcmd"
	"github.com/labhub/labmate/cmd/cli/classcmd"
	"github.com/labhub/labmate/cmd/cli/doctorcmd"
	"github.com/labhub/labmate/cmd/cli/factory"
	"github.com/labhub/labmate/cmd/cli/labcmd"
	"github.com/labhub/labmate/cmd/cli/replaycmd"
	"github.com/labhub/labmate/cmd/cli/reportcmd"
	"github.com/labhub/labmate/cmd/cli/resetcmd"
	"github.com/labhub/labmate/cmd/cli/sandboxcmd"
	"github.com/labhub/labmate/cmd/cli/tuicmd"
)

// newRootCmd builds the whole command tree around one factory made from
// the flag groups every command shares. Adding a command is one line
// here: root.AddCommand(xcmd.NewCmd(f, streams)).
func newRootCmd(streams cli.Streams) (*cobra.Command, *factory.Factory) {
	labs, cluster := &cli.LabFlags{}, &cli.ClusterFlags{}
	f := factory.New(labs, cluster, version, factory.Default(streams))
	root := tuicmd.NewCmd(f, streams)
	labs.AddFlags(root)
	cluster.AddFlags(root)
	root.PersistentPreRunE = f.Begin

	root.AddCommand(
		checkcmd.NewCmd(f, streams),
		replaycmd.NewCmd(f, streams),
		sandboxcmd.NewCmd(f, streams),
		doctorcmd.NewCmd(f, streams),
		reportcmd.NewCmd(f, streams),
		resetcmd.NewCmd(f, streams),
		catchupcmd.NewCmd(f, streams),
		cli.NewVersionCmd(streams, version),
		cli.NewCompletionCmd(streams),
		classcmd.NewCmd(f, streams),
		labcmd.NewCmd(f, streams),
	)
	cli.Root(root, streams)
	return root, f
}

// stdinFile is the process's stdin; tests inject their own reader.
func stdinFile() io.Reader { return os.Stdin }
