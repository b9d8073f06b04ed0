package main

import (
	"context"
	"fmt"
	"io"
)

// runDoctor is `labmate doctor` (not built yet).
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "labmate doctor: not built yet")
	return exitUsage
}
