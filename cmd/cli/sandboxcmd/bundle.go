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

// bundleOptions is `labmate sandbox bundle -o FILE`: the bin dir and a
// manifest in one file, for a room without internet (`sandbox up --from
// FILE` installs it). Progress goes to stderr, the bundle's path alone to
// stdout, as `sandbox build` does with the bin dir.
type bundleOptions struct {
	*flags
	Out     string
	streams cli.Streams
}

func newBundleCmd(f cli.Factory, fl *flags, streams cli.Streams) *cobra.Command {
	o := &bundleOptions{flags: fl, streams: streams}
	cmd := cli.Command("sandbox.bundle", "", cli.NoArgs, f, o)
	cmd.Flags().StringVarP(&o.Out, "output", "o", "", content.Msg("cli.flag.bundle_out"))
	cli.Metavars(cmd.Flags(), map[string]string{"output": "FILE"})
	_ = cmd.MarkFlagFilename("output", "tar.gz", "tgz")
	return cmd
}

// Complete has nothing to find: the flags name the bin dir.
func (o *bundleOptions) Complete(cli.Factory, *cobra.Command, []string) error { return nil }

// Validate refuses a bundle with nowhere to go.
func (o *bundleOptions) Validate() error {
	if o.Out == "" {
		return cli.UsageErr("cli.sandbox.bundle_out")
	}
	return nil
}

// Run packs the bin dir.
func (o *bundleOptions) Run(ctx context.Context) error {
	opts := o.options(o.streams)
	_, err := prebuilt.WriteBundle(ctx, prebuilt.BundleOptions{
		BinDir: opts.ResolvedBinDir(), Binaries: sandbox.Binaries, Out: o.Out, Progress: o.streams.ErrOut})
	if err != nil {
		return cli.Fail(err)
	}
	fmt.Fprintln(o.streams.Out, o.Out)
	return nil
}
