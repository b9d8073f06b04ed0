package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/sandbox"
)

// newSandboxCmd is `labmate sandbox up|down|status|build`: a throwaway
// local copy of the lab cluster. It is the only command that writes to a
// cluster, and only to the one it creates.
func newSandboxCmd(c *common, streams cli.Streams) *cobra.Command {
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
	cmd.AddCommand(
		verb("up", func(cmd *cobra.Command) int { return sandboxUp(cmd, c, *opts, streams) }),
		verb("down", func(cmd *cobra.Command) int {
			if err := sandbox.Down(cmd.Context(), *opts); err != nil {
				fmt.Fprintln(streams.ErrOut, err)
				return cli.ExitFail
			}
			return cli.ExitOK
		}),
		buildCmd,
		verb("status", func(cmd *cobra.Command) int { return sandboxStatus(cmd, c, *opts, streams) }),
	)
	return cmd
}

// sandboxUp is `labmate sandbox up`: the chosen lab's topology and start
// objects, then where its kubeconfig is.
func sandboxUp(cmd *cobra.Command, c *common, opts sandbox.Options, streams cli.Streams) int {
	kit, err := c.resolveLab()
	if err != nil {
		return exitFor(err, streams.ErrOut)
	}
	if opts, err = opts.ForLab(kit.Text); err != nil {
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

// sandboxStatus is `labmate sandbox status`: exit 0 only when it is ready.
func sandboxStatus(cmd *cobra.Command, c *common, opts sandbox.Options, streams cli.Streams) int {
	// With a lab known, its topology is what Ready means.
	if kit, err := c.resolveLab(); err == nil {
		opts.Nodes, _ = sandbox.NodesOf(kit.Text)
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
