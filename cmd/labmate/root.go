package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog/labcmd"
	"github.com/labhub/labmate/class/classcmd"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/sandbox/sandboxcmd"
)

// newRootCmd builds the whole command tree. Adding a command is one line
// here: root.AddCommand(xcmd.NewCmd(streams)) for a command package's, or
// newXCmd(c, streams) for one that needs the shared flags.
func newRootCmd(streams cli.Streams) *cobra.Command {
	c := &common{}
	root := newTUICmd(c, streams)
	c.bindPersistent(root)
	root.PersistentPreRunE = c.preRun

	root.AddCommand(
		newCheckCmd(c, streams),
		newReplayCmd(c, streams),
		sandboxcmd.NewCmd(streams, c.labText),
		newDoctorCmd(c, streams),
		newReportCmd(c, streams),
		newResetCmd(c, streams),
		cli.NewVersionCmd(streams, version),
		cli.NewCompletionCmd(streams),
		classcmd.NewCmd(streams, newClassPreviewCmd(c, streams)),
		labcmd.NewCmd(streams, newLabVerifyCmd(c, streams), labcmd.NewRBACCmd(streams, c.labFor)),
	)
	cli.Root(root, streams)
	return root
}

// bindPersistent declares the flags every lab-reading command takes, once,
// on the root; every subcommand inherits them.
func (c *common) bindPersistent(root *cobra.Command) {
	fs := root.PersistentFlags()
	fs.StringVar(&c.root, "root", "", content.Msg("cli.flag.root", "roots", cli.LabFacts(func(l *content.Lab) string { return l.DefaultRoot })))
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", content.Msg("cli.flag.kubeconfig"))
	fs.StringVar(&c.kubeCtx, "context", "", content.Msg("cli.flag.context"))
	fs.BoolVar(&c.noCluster, "no-cluster", false, content.Msg("cli.flag.no_cluster"))
	fs.BoolVar(&c.poll, "poll", false, content.Msg("cli.flag.poll"))
	fs.StringVar(&c.logFile, "log", "", content.Msg("cli.flag.log"))
	fs.StringVar(&c.stateDir, "state-dir", "", content.Msg("cli.flag.state_dir"))
	fs.StringVar(&c.lab, "lab", "", content.Msg("cli.flag.lab"))
	fs.StringVar(&c.labDir, "lab-dir", "", content.Msg("cli.flag.lab_dir"))
	cli.Metavars(fs, map[string]string{"root": "DIR", "kubeconfig": "FILE", "context": "NAME", "log": "FILE", "state-dir": "DIR", "lab": "ID", "lab-dir": "DIR"})
	_ = root.MarkPersistentFlagDirname("lab-dir")
	_ = root.MarkPersistentFlagDirname("root")
	_ = root.MarkPersistentFlagDirname("state-dir")
	_ = root.MarkPersistentFlagFilename("kubeconfig")
	_ = root.MarkPersistentFlagFilename("log")
	_ = root.RegisterFlagCompletionFunc("context", c.completeContexts)
	_ = root.RegisterFlagCompletionFunc("lab", labcmd.CompleteLabs)
}

// stdinFile is the process's stdin; tests inject their own reader.
func stdinFile() io.Reader { return os.Stdin }
