package verify

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// spent notes, in the --log file (slog at debug level; nowhere without
// one), how long a phase of the proof took: where a trial's time goes
// (docs/MEASURED.md's breakdown is read from these lines, see
// scripts/proofphases.awk).
func spent(phase string, since time.Time, kv ...any) {
	slog.Debug("verify phase", append([]any{"phase", phase, "ms", time.Since(since).Milliseconds()}, kv...)...)
}

// timedExec notes each program a script runs (kubectl, mostly) and how
// long it took: its process's start and the wait it may do.
func timedExec(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		at := time.Now()
		err := next(ctx, args)
		spent("exec", at, "cmd", strings.Join(args[:min(len(args), 2)], " "))
		return err
	}
}
