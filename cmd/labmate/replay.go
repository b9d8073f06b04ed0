package main

import (
	"context"
	"fmt"
	"io"
)

// runReplay is `labmate replay` (not built yet).
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "labmate replay: not built yet")
	return exitUsage
}
