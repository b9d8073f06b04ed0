// Package files is the source that watches a learner's lab files with
// fsnotify. It watches directories, not files, so files and folders created
// later, editors' rename-on-save, deletes and permission changes are all
// seen; bursts of events are debounced into one re-read.
package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/labhub/labmate/observe"
)

// Name is the source name reported in Synced observations.
const Name = "files"

// Options configure a Source.
type Options struct {
	Root  string   // absolute lab root
	Paths []string // lab-relative, slash-separated files to observe
	// Debounce is how long to wait after the last event of a burst before
	// re-reading (default 40ms). MaxDelay caps the wait under a constant
	// stream of events (default 250ms).
	Debounce time.Duration
	MaxDelay time.Duration
}

// Source observes a fixed set of files under a lab root.
type Source struct {
	opts   Options
	rescan chan struct{}

	mu   sync.Mutex
	last map[string]observe.FileObs
}

// New returns a file source. Paths are observed even if they (or their
// directories, or the root itself) do not exist yet.
func New(opts Options) *Source {
	if opts.Debounce <= 0 {
		opts.Debounce = 40 * time.Millisecond
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = 250 * time.Millisecond
	}
	return &Source{opts: opts, rescan: make(chan struct{}, 1), last: map[string]observe.FileObs{}}
}

// Name implements observe.Source.
func (s *Source) Name() string { return Name }

// Rescan asks the source to re-read every file and re-arm its watches now
// (the learner's "re-run checks" key). It never blocks.
func (s *Source) Rescan() {
	select {
	case s.rescan <- struct{}{}:
	default:
	}
}

// Run implements observe.Source.
func (s *Source) Run(ctx context.Context, out chan<- observe.Observation) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("file watcher panic: %v", r)
		}
	}()
	w, werr := fsnotify.NewWatcher()
	if werr != nil {
		// Still deliver the files once so checks run; then report why
		// changes will not be seen.
		s.scan(ctx, out, true)
		s.emit(ctx, out, observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: Name}})
		return fmt.Errorf("fsnotify: %w", werr)
	}
	defer w.Close()

	watched := map[string]bool{}
	s.arm(w, watched)
	s.scan(ctx, out, true)
	if !s.emit(ctx, out, observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: Name}}) {
		return nil
	}

	var timer *time.Timer
	var timerC <-chan time.Time
	var burstStart time.Time
	trigger := func() {
		now := time.Now()
		if timer == nil {
			burstStart = now
			timer = time.NewTimer(s.opts.Debounce)
			timerC = timer.C
			return
		}
		if now.Sub(burstStart) >= s.opts.MaxDelay {
			return // let the pending timer fire
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(s.opts.Debounce)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("fsnotify: event channel closed")
			}
			_ = ev
			trigger()
		case werr, ok := <-w.Errors:
			if !ok {
				return errors.New("fsnotify: error channel closed")
			}
			// Overflow or a watch vanished: re-arm and re-read everything.
			_ = werr
			trigger()
		case <-s.rescan:
			s.arm(w, watched)
			s.scan(ctx, out, false)
		case <-timerC:
			timer, timerC = nil, nil
			s.arm(w, watched)
			s.scan(ctx, out, false)
		}
	}
}

// arm makes sure every directory on the way to every observed file is
// watched: for a directory that does not exist yet, its nearest existing
// ancestor is watched so its creation is seen.
func (s *Source) arm(w *fsnotify.Watcher, watched map[string]bool) {
	want := map[string]bool{}
	for _, p := range s.opts.Paths {
		dir := filepath.Dir(filepath.Join(s.opts.Root, filepath.FromSlash(p)))
		for {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				want[dir] = true
				// Watch the ancestors inside the root as well, so a
				// deleted and recreated parent is noticed.
				if dir == s.opts.Root || !within(s.opts.Root, dir) {
					break
				}
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	for dir := range watched {
		if !want[dir] {
			_ = w.Remove(dir)
			delete(watched, dir)
		}
	}
	for dir := range want {
		if watched[dir] {
			continue
		}
		if err := w.Add(dir); err == nil {
			watched[dir] = true
		}
	}
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}

// scan re-reads every observed file and emits those that changed (all of
// them when initial is set).
func (s *Source) scan(ctx context.Context, out chan<- observe.Observation, initial bool) {
	paths := append([]string(nil), s.opts.Paths...)
	sort.Strings(paths)
	for _, p := range paths {
		f := Read(s.opts.Root, p)
		s.mu.Lock()
		prev, seen := s.last[p]
		changed := initial || !seen || !sameFile(prev, f)
		if changed {
			s.last[p] = f
		}
		s.mu.Unlock()
		if changed && !s.emit(ctx, out, observe.Observation{Time: time.Now(), File: &f}) {
			return
		}
	}
}

func (s *Source) emit(ctx context.Context, out chan<- observe.Observation, o observe.Observation) bool {
	select {
	case out <- o:
		return true
	case <-ctx.Done():
		return false
	}
}

func sameFile(a, b observe.FileObs) bool {
	return a.State == b.State && a.Mode == b.Mode && a.Size == b.Size && a.Err == b.Err && bytes.Equal(a.Content, b.Content)
}

// Read observes one lab-relative path now (see observe.ReadFile).
func Read(root, rel string) observe.FileObs { return observe.ReadFile(root, rel) }
