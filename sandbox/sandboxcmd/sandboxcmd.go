// Package sandboxcmd is `labmate sandbox up|down|status|build|bundle`, a cobra
// command around package sandbox (kubectl's pkg/cmd shape). Of the flags
// every lab-reading command shares it needs only the lab they name, which
// cmd/labmate hands it as a function.
package sandboxcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/prebuilt"
)

// Lab is the lab the command line names; its error is Korean, a usage or
// environment problem.
type Lab func() (*content.Lab, error)

// NewCmd is `labmate sandbox up|down|status|build`: a throwaway local
// copy of the lab cluster, with lab's topology. It is the only command
// that writes to a cluster, and only to the one it creates.
func NewCmd(streams cli.Streams, lab Lab) *cobra.Command {
	opts := &sandbox.Options{Progress: streams.Out, Build: true}
	var force bool
	cmd := cli.NewCommand("sandbox", "up|down|status|build", cli.NoArgs, nil)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return &cli.UsageError{Cmd: cmd, Msg: content.Msg("cli.sandbox.which")}
	}
	fs := cmd.PersistentFlags()
	fs.StringVar(&opts.BinDir, "bin-dir", "", content.Msg("cli.flag.bin_dir"))
	fs.StringVar(&opts.Name, "name", "", content.Msg("cli.flag.sandbox_name"))
	fs.BoolVar(&opts.Verbose, "verbose", false, content.Msg("cli.flag.verbose"))
	cli.Metavars(fs, map[string]string{"bin-dir": "DIR", "name": "NAME"})
	_ = cmd.MarkPersistentFlagDirname("bin-dir")

	verb := func(name string, run func(cmd *cobra.Command) int) *cobra.Command {
		return cli.NewCommand("sandbox."+name, "", cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return run(cmd) })
	}
	buildCmd := verb("build", func(cmd *cobra.Command) int {
		// Progress on stderr: stdout carries only the bin dir.
		bo := *opts
		bo.Progress = streams.ErrOut
		if err := sandbox.Build(cmd.Context(), bo, force); err != nil {
			fmt.Fprintln(streams.ErrOut, err)
			return cli.ExitFail
		}
		// The bin dir alone on stdout, for scripts: bin=$(labmate sandbox build).
		fmt.Fprintln(streams.Out, opts.ResolvedBinDir())
		return cli.ExitOK
	})
	buildCmd.Flags().BoolVar(&force, "force", false, content.Msg("cli.flag.force"))
	upCmd := verb("up", func(cmd *cobra.Command) int { return up(cmd, lab, *opts, streams) })
	upCmd.Flags().StringVar(&opts.From, "from", "", content.Msg("cli.flag.from", "env", prebuilt.EnvMirror))
	cli.Metavars(upCmd.Flags(), map[string]string{"from": "FILE|URL"})
	cmd.AddCommand(
		upCmd,
		newBundleCmd(streams, opts),
		verb("down", func(cmd *cobra.Command) int {
			if err := sandbox.Down(cmd.Context(), *opts); err != nil {
				fmt.Fprintln(streams.ErrOut, err)
				return cli.ExitFail
			}
			return cli.ExitOK
		}),
		buildCmd,
		verb("status", func(cmd *cobra.Command) int { return status(cmd, lab, *opts, streams) }),
	)
	return cmd
}

// up is `labmate sandbox up`: the chosen lab's topology and start
// objects, then where its kubeconfig is.
func up(cmd *cobra.Command, lab Lab, opts sandbox.Options, streams cli.Streams) int {
	l, err := lab()
	if err != nil {
		fmt.Fprintln(streams.ErrOut, err)
		return cli.ExitUsage
	}
	if opts, err = opts.ForLab(l); err != nil {
		fmt.Fprintln(streams.ErrOut, err)
		return cli.ExitUsage
	}
	if err := sandbox.Up(cmd.Context(), opts); err != nil {
		fmt.Fprintln(streams.ErrOut, err)
		return cli.ExitFail
	}
	fmt.Fprintln(streams.Out, opts.Ready())
	return cli.ExitOK
}

// status is `labmate sandbox status`: exit 0 only when it is ready.
func status(cmd *cobra.Command, lab Lab, opts sandbox.Options, streams cli.Streams) int {
	// With a lab known, its topology is what Ready means.
	if l, err := lab(); err == nil {
		opts.Nodes, _ = sandbox.NodesOf(l)
	}
	st, err := sandbox.Status(cmd.Context(), opts)
	fmt.Fprintln(streams.Out, st.String())
	if err != nil {
		fmt.Fprintln(streams.ErrOut, err)
		return cli.ExitFail
	}
	if !st.Ready() {
		return cli.ExitFail
	}
	return cli.ExitOK
}
