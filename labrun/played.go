package labrun

import (
	"context"
	"time"

	"github.com/labhub/labmate/engine"
)

// playedQuiet is how long a replay run's engine must be quiet after the
// trace's last record before Played calls the run over: it may still be
// folding the last records in.
const playedQuiet = 300 * time.Millisecond

// Played is the one end of a replay run (Replay): it reads the stream st
// of r, handing each update to each, until the trace has played to its
// end and the engine has been quiet for a moment since, and returns the
// last report. ok is false when ctx ended first.
func (r *Run) Played(ctx context.Context, st *Stream, each func(Update)) (last engine.Report, ok bool) {
	replay := r.replay
	quiet := time.NewTimer(time.Hour)
	defer quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return st.Last(), false
		case u := <-st.Updates():
			st.Take(u)
			each(u)
			if replay.Progress().Done {
				quiet.Reset(playedQuiet)
			}
			continue
		case <-replay.Updates():
			if replay.Progress().Done {
				quiet.Reset(playedQuiet)
			}
			continue
		case <-quiet.C:
		}
		if replay.Progress().Done {
			return st.Last(), true
		}
	}
}
