package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/labhub/labmate/observe"
)

// Recorder writes a trace. Its Record method fits engine.Config.Tap. Every
// record is one Write call of one whole line, with nothing buffered in
// between, so a crash loses at most the record being written (which the
// reader then skips as a truncated last line).
type Recorder struct {
	mu      sync.Mutex
	w       io.Writer
	closer  io.Closer
	started time.Time
	n       int
	closed  bool
	failed  error // a write failed: recording stopped
	dropped error // the first observation that could not be encoded
}

// NewRecorder writes the header to w and returns a recorder writing to
// it. Format and Version are filled in; a zero Started becomes now.
func NewRecorder(w io.Writer, h Header) (*Recorder, error) {
	h.Format, h.Version = Format, Version
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
	h.Started = h.Started.Round(0)
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	return &Recorder{w: w, started: h.Started}, nil
}

// Create creates (or truncates) the file at path, opened for appending,
// and records into it. Close closes the file.
func Create(path string, h Header) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	r, err := NewRecorder(f, h)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// Record appends one observation. It never blocks on anything but the
// write itself and never fails the caller: the first write error stops
// recording and is kept for Err. An observation that cannot be encoded
// (an object type the client-go scheme does not know) is left out and
// counted in Err as well.
func (r *Recorder) Record(o observe.Observation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.failed != nil {
		return // after a failed write, stop rather than leave holes
	}
	b, err := encode(o, r.started)
	if err != nil {
		if r.dropped == nil {
			r.dropped = fmt.Errorf("trace: record left out: %w", err)
		}
		return
	}
	if _, err := r.w.Write(b); err != nil {
		r.failed = fmt.Errorf("trace: write: %w", err)
		return
	}
	r.n++
}

// Count is the number of records written.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Err returns the first problem: a write that failed (recording stopped
// there) or an observation that could not be encoded (left out).
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed != nil {
		return r.failed
	}
	return r.dropped
}

// Close closes the file Create opened. Later records are dropped.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.closer == nil {
		return nil
	}
	err := r.closer.Close()
	r.closer = nil
	return err
}
