package main

import (
	"context"
	"fmt"
	"io"
)

// runTUI opens the interactive companion.
func runTUI(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "TUI not wired yet")
	return exitUsage
}
