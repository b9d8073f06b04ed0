package main

import (
	"context"
	"fmt"
	"io"
)

// runSandbox is `labmate sandbox up|down|status`.
func runSandbox(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sandbox not wired yet")
	return exitUsage
}
