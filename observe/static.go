package observe

import (
	"context"
	"time"
)

// Static is a source that reports a fixed set of observations, then that
// it synced, then nothing: for example the cluster state "disabled" when
// the learner passed --no-cluster.
type Static struct {
	SourceName string
	Obs        []Observation
}

// Name implements Source.
func (s Static) Name() string { return s.SourceName }

// Run implements Source.
func (s Static) Run(ctx context.Context, out chan<- Observation) error {
	for _, o := range append(s.Obs, Observation{Synced: &SyncedObs{Source: s.SourceName}}) {
		if o.Time.IsZero() {
			o.Time = time.Now()
		}
		select {
		case out <- o:
		case <-ctx.Done():
			return nil
		}
	}
	<-ctx.Done()
	return nil
}
