package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox"
)

// runSandbox is `labmate sandbox up|down|status`: a throwaway local copy of
// the lab cluster. It is the only command that writes to a cluster, and
// only to the one it creates.
func runSandbox(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, content.Msg("cli.sandbox.usage"))
		return exitUsage
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("sandbox "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := sandbox.Options{Progress: stdout}
	fs.StringVar(&opts.BinDir, "bin-dir", "", content.Msg("cli.flag.bin_dir"))
	fs.StringVar(&opts.Name, "name", "", content.Msg("cli.flag.sandbox_name"))
	fs.BoolVar(&opts.Verbose, "verbose", false, content.Msg("cli.flag.verbose"))
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	switch verb {
	case "up":
		if err := sandbox.Up(ctx, opts); err != nil {
			fmt.Fprintln(stderr, err)
			return exitFail
		}
		fmt.Fprintln(stdout, content.Msg("cli.sandbox.ready", "kubeconfig", sandbox.Kubeconfig(opts), "context", sandbox.Context(opts)))
		return exitOK
	case "down":
		if err := sandbox.Down(ctx, opts); err != nil {
			fmt.Fprintln(stderr, err)
			return exitFail
		}
		return exitOK
	case "status":
		st, err := sandbox.Status(ctx, opts)
		fmt.Fprintln(stdout, st.String())
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitFail
		}
		if !st.Ready() {
			return exitFail
		}
		return exitOK
	default:
		fmt.Fprintln(stderr, content.Msg("cli.sandbox.usage"))
		return exitUsage
	}
}
