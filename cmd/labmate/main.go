// Command labmate is a terminal companion for the GPU incident lab. This
// package only wires: it parses flags, builds sources, the engine and the
// TUI from the other packages, and maps results to exit codes.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/labhub/labmate/content"
)

// version is set at release time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes shared by every subcommand.
const (
	exitOK    = 0
	exitFail  = 1 // a requested step (or check) did not pass
	exitUsage = 2 // usage or environment error
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	silenceKlog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// The first signal asks for a clean exit; once it has, default handling
	// comes back so a second Ctrl-C or SIGTERM always ends labmate, even
	// if something is stuck.
	go func() {
		<-ctx.Done()
		stop()
	}()

	cmd := ""
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "":
		return runTUI(ctx, args, stdout, stderr)
	case "check":
		return runCheck(ctx, args, stdout, stderr)
	case "sandbox":
		return runSandbox(ctx, args, stdout, stderr)
	case "replay":
		return runReplay(ctx, args, stdout, stderr)
	case "doctor":
		return runDoctor(ctx, args, stdout, stderr)
	case "report":
		return runReport(ctx, args, stdout, stderr)
	case "reset":
		return runReset(ctx, args, stdin(), stdout, stderr)
	case "class":
		return runClass(ctx, args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "labmate", version)
		return exitOK
	case "help":
		fmt.Fprint(stdout, content.Msg("cli.usage"))
		return exitOK
	default:
		fmt.Fprintln(stderr, content.Msg("cli.unknown_command", "cmd", cmd))
		fmt.Fprint(stderr, content.Msg("cli.usage"))
		return exitUsage
	}
}
