package main

import (
	"context"
	"fmt"
	"io"
	"os"
)

func stdin() io.Reader { return os.Stdin }

// runReset is `labmate reset` (not built yet).
func runReset(ctx context.Context, args []string, in io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "labmate reset: not built yet")
	return exitUsage
}
