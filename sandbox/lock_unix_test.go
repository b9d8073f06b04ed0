//go:build unix

package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/content"
)

// A second lock waits, says so once, and gives up with the context's error
// wrapped when the first is held too long.
func TestLockWaitsAndTimesOut(t *testing.T) {
	isolate(t)
	unlock, err := lock(context.Background(), Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	var progress strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = lock(ctx, Options{Progress: &progress}.withDefaults())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock = %v, want it to wrap context.DeadlineExceeded", err)
	}
	if want := content.Msg("sandbox.err.lock_timeout", "path", ""); !strings.HasPrefix(err.Error(), strings.TrimSuffix(want, ")")) {
		t.Errorf("second lock error = %q, want it to start like %q", err, want)
	}
	if got, want := progress.String(), content.Msg("sandbox.lock.waiting")+"\n"; got != want {
		t.Errorf("progress = %q, want one line %q", got, want)
	}
}
