package sandboxcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/prebuilt"
)

// newBundleCmd is `labmate sandbox bundle -o FILE`: the bin dir and a
// manifest in one file, for a room without internet (`sandbox up --from
// FILE` installs it). Progress goes to stderr, the bundle's path alone to
// stdout, as `sandbox build` does with the bin dir.
func newBundleCmd(streams cli.Streams, opts *sandbox.Options) *cobra.Command {
	var out string
	cmd := cli.NewCommand("sandbox.bundle", "", cli.NoArgs, func(cmd *cobra.Command, _ []string) int {
		if out == "" {
			fmt.Fprintln(streams.ErrOut, content.Msg("cli.sandbox.bundle_out"))
			return cli.ExitUsage
		}
		_, err := prebuilt.WriteBundle(cmd.Context(), prebuilt.BundleOptions{
			BinDir: opts.ResolvedBinDir(), Binaries: sandbox.Binaries, Out: out, Progress: streams.ErrOut})
		if err != nil {
			fmt.Fprintln(streams.ErrOut, err)
			return cli.ExitFail
		}
		fmt.Fprintln(streams.Out, out)
		return cli.ExitOK
	})
	cmd.Flags().StringVarP(&out, "output", "o", "", content.Msg("cli.flag.bundle_out"))
	cli.Metavars(cmd.Flags(), map[string]string{"output": "FILE"})
	_ = cmd.MarkFlagFilename("output", "tar.gz", "tgz")
	return cmd
}
