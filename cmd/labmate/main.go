// Command labmate is a terminal companion for hands-on Kubernetes labs.
// This package only wires: main, and the root of the command tree
// (root.go), whose commands live in cli's command packages.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/internal/applog"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// version is set at release time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if scriptprobe.IsInit() {
		scriptprobe.InitMain() // labmate re-executed as a script's sandbox
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is labmate with the process's stdin and the given output streams.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, cli.Streams{In: stdinFile(), Out: stdout, ErrOut: stderr})
}

// runWith runs one command line with injected streams and returns the
// exit code.
func runWith(args []string, streams cli.Streams) int {
	applog.SilenceKlog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// The first signal asks for a clean exit; once it has, default handling
	// comes back so a second Ctrl-C or SIGTERM always ends labmate, even
	// if something is stuck.
	go func() {
		<-ctx.Done()
		stop()
	}()
	root, f := newRootCmd(streams)
	defer f.Close()
	root.SetContext(ctx)
	return cli.Execute(root, args, streams)
}
