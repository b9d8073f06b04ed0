// Package sandboxcmd is `labmate sandbox up|down|status|build|bundle`, a
// throwaway local copy of the lab cluster (package sandbox) with the lab's
// topology. It is the only command that writes to a cluster, and only to
// the one it creates.
package sandboxcmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/prebuilt"
)

// flags are `labmate sandbox`'s own, for every verb.
type flags struct {
	BinDir  string
	Name    string
	Verbose bool
	From    string // up --from: a bundle file, or a mirror's URL
	SHA256  string // up --sha256: the bundle's own digest, as the learner was given it
}

// options are the sandbox's as the flags say, progress on out.
func (fl *flags) options(out cli.Streams) sandbox.Options {
	return sandbox.Options{BinDir: fl.BinDir, Name: fl.Name, Verbose: fl.Verbose, From: fl.From, SHA256: fl.SHA256, Progress: out.Out, Build: true}
}

// NewCmd is `labmate sandbox up|down|status|build`.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	fl := &flags{}
	cmd := cli.Group("sandbox", "up|down|status|build|bundle", "cli.sandbox.which")
	fs := cmd.PersistentFlags()
	fs.StringVar(&fl.BinDir, "bin-dir", "", content.Msg("cli.flag.bin_dir"))
	fs.StringVar(&fl.Name, "name", "", content.Msg("cli.flag.sandbox_name"))
	fs.BoolVar(&fl.Verbose, "verbose", false, content.Msg("cli.flag.verbose"))
	cli.Metavars(fs, map[string]string{"bin-dir": "DIR", "name": "NAME"})
	_ = cmd.MarkPersistentFlagDirname("bin-dir")

	build := &buildOptions{flags: fl, streams: streams}
	buildCmd := cli.Command("sandbox.build", "", cli.NoArgs, f, build)
	buildCmd.Flags().BoolVar(&build.Force, "force", false, content.Msg("cli.flag.force"))
	upCmd := cli.Command("sandbox.up", "", cli.NoArgs, f, &upOptions{flags: fl, streams: streams})
	upCmd.Flags().StringVar(&fl.From, "from", "", content.Msg("cli.flag.from", "env", prebuilt.EnvMirror))
	upCmd.Flags().StringVar(&fl.SHA256, "sha256", "", content.Msg("cli.flag.sha256"))
	cli.Metavars(upCmd.Flags(), map[string]string{"from": "FILE|URL", "sha256": "SHA256"})
	cmd.AddCommand(
		upCmd,
		newBundleCmd(f, fl, streams),
		cli.Command("sandbox.down", "", cli.NoArgs, f, &downOptions{flags: fl, streams: streams}),
		buildCmd,
		cli.Command("sandbox.status", "", cli.NoArgs, f, &statusOptions{flags: fl, streams: streams}),
	)
	return cmd
}

// upOptions is `labmate sandbox up`: the chosen lab's topology and start
// objects, then where its kubeconfig is.
type upOptions struct {
	*flags
	streams cli.Streams
	opts    sandbox.Options
}

// Complete reads the lab's topology and start objects.
func (o *upOptions) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	kit, err := f.Lab()
	if err != nil {
		return err
	}
	o.opts, err = o.options(o.streams).ForLab(kit.Text)
	return err
}

// Validate refuses a --sha256 that is not a digest.
func (o *upOptions) Validate() error {
	if o.SHA256 == "" {
		return nil
	}
	if err := prebuilt.CheckDigest(o.SHA256); err != nil {
		return cli.Exit(cli.ExitUsage, err.Error())
	}
	return nil
}

// Run brings the sandbox up.
func (o *upOptions) Run(ctx context.Context) error {
	if err := sandbox.Up(ctx, o.opts); err != nil {
		return cli.Fail(err)
	}
	fmt.Fprintln(o.streams.Out, o.opts.Ready())
	return nil
}

// downOptions is `labmate sandbox down`.
type downOptions struct {
	*flags
	streams cli.Streams
}

// Complete has nothing to find: the flags name the sandbox.
func (o *downOptions) Complete(cli.Factory, *cobra.Command, []string) error { return nil }

// Run takes the sandbox down.
func (o *downOptions) Run(ctx context.Context) error {
	return cli.Fail(sandbox.Down(ctx, o.options(o.streams)))
}

// buildOptions is `labmate sandbox build`: the cluster's binaries from
// the Go module proxy.
type buildOptions struct {
	*flags
	Force   bool
	streams cli.Streams
}

// Complete has nothing to find: the flags name the bin dir.
func (o *buildOptions) Complete(cli.Factory, *cobra.Command, []string) error { return nil }

// Run builds; progress on stderr, the bin dir alone on stdout for
// scripts (bin=$(labmate sandbox build)).
func (o *buildOptions) Run(ctx context.Context) error {
	opts := o.options(o.streams)
	opts.Progress = o.streams.ErrOut
	if err := sandbox.Build(ctx, opts, o.Force); err != nil {
		return cli.Fail(err)
	}
	fmt.Fprintln(o.streams.Out, opts.ResolvedBinDir())
	return nil
}

// statusOptions is `labmate sandbox status`: exit 0 only when it is
// ready.
type statusOptions struct {
	*flags
	streams cli.Streams
	opts    sandbox.Options
}

// Complete reads the topology that Ready means, when a lab is known.
func (o *statusOptions) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	o.opts = o.options(o.streams)
	if kit, err := f.Lab(); err == nil {
		o.opts.Nodes, _ = sandbox.NodesOf(kit.Text)
	}
	return nil
}

// Run prints the sandbox's status: nil only when it is ready.
func (o *statusOptions) Run(ctx context.Context) error {
	st, err := sandbox.Status(ctx, o.opts)
	fmt.Fprintln(o.streams.Out, st.String())
	switch {
	case err != nil:
		return cli.Fail(err)
	case !st.Ready():
		return cli.Quiet(cli.ExitFail)
	}
	return nil
}
