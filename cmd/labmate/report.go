package main

import (
	"context"
	"fmt"
	"io"
)

// runReport is `labmate report` (not built yet).
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "labmate report: not built yet")
	return exitUsage
}
