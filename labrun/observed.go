package labrun

import (
	"context"
	"sync"
	"time"

	"github.com/labhub/labmate/observe"
)

// Observed wires the run o describes, waits until every source delivered
// its initial state (or timeout passes) and returns everything it
// observed: what the lab's checks would see at that moment (`labmate
// lab eval` reads the lab cluster this way, through the lab's own scope
// and the cluster source a run has), and the run's warnings. Its error
// is New's.
func Observed(ctx context.Context, o Options, timeout time.Duration) (*observe.Snapshot, []string, error) {
	r, err := New(o)
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	store := observe.NewStore()
	r.Observe(func(obs observe.Observation) {
		mu.Lock()
		store.Apply(obs)
		mu.Unlock()
	})
	r.Once(ctx, timeout)
	mu.Lock()
	defer mu.Unlock()
	return store.Snapshot(), r.Warnings(), nil
}
