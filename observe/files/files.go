// Package files is the source that watches a learner's lab files with
// fsnotify. It watches directories, not files, so files and folders created
// later, editors' rename-on-save, deletes and permission changes are all
// seen. A changed file is read at once (the engine holds a result that got
// worse until the file is quiet, so a half-written file never shows red),
// and every file is read again once a burst of events has gone quiet.
//
// Where inotify reports nothing for changes made by another machine or
// layer (NFS, SMB/CIFS, 9p as in WSL2's /mnt/c, FUSE and VM shared
// folders), the source polls the lab's files instead: see poll.go.
package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	// Tree observes every regular file under Root instead of Paths,
	// those made later included (an author's lab directory).
	Tree bool
	// Debounce is how long a burst of events must be quiet before every
	// file is read again (default 40ms). MaxDelay caps the wait under a
	// constant stream of events (default 250ms).
	Debounce time.Duration
	MaxDelay time.Duration
	// Poll forces polling instead of file events (`--poll`); without it
	// the source polls by itself on a filesystem that does not report
	// changes (PollReason). PollInterval is how often it looks (default
	// 250ms).
	Poll         bool
	PollInterval time.Duration
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
	if opts.PollInterval <= 0 {
		opts.PollInterval = 250 * time.Millisecond
	}
	return &Source{opts: opts, rescan: make(chan struct{}, 1), last: map[string]observe.FileObs{}}
}

// Name implements observe.Source.
func (s *Source) Name() string { return Name }

// Polling says whether the source will poll, and why: "forced" for
// Options.Poll, else the filesystem's name from PollReason ("" when file
// events are used).
func (s *Source) Polling() string {
	if s.opts.Poll {
		return "forced"
	}
	return PollReason(s.opts.Root)
}

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
	if s.Polling() != "" {
		return s.poll(ctx, out)
	}
	w, werr := fsnotify.NewWatcher()
	if werr != nil {
		// No inotify instance left: polling still sees every change.
		slog.Warn("file watcher unavailable, polling", "err", werr)
		return s.poll(ctx, out)
	}
	defer w.Close()
	return s.watch(ctx, out, w)
}

// watch reads every file, says it has synced, and then reads what each
// burst of events touched at once, and everything again once the burst
// is quiet, after a watch error and on Rescan.
func (s *Source) watch(ctx context.Context, out chan<- observe.Observation, w *fsnotify.Watcher) error {
	watched := map[string]bool{}
	s.arm(w, watched)
	s.scan(ctx, out, s.paths(), true)
	if !s.emit(ctx, out, observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: Name}}) {
		return nil
	}
	everything := func() {
		s.arm(w, watched)
		s.scan(ctx, out, s.paths(), false)
	}
	quiet := quietTimer{debounce: s.opts.Debounce, maxDelay: s.opts.MaxDelay}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("fsnotify: event channel closed")
			}
			touched, rearm := s.takeEvents(ev, w.Events)
			if rearm {
				s.arm(w, watched)
			}
			s.scan(ctx, out, keys(touched), false)
			quiet.kick()
		case _, ok := <-w.Errors:
			if !ok {
				return errors.New("fsnotify: error channel closed")
			}
			// Overflow or a watch vanished: re-arm and re-read everything.
			everything()
			quiet.kick()
		case <-s.rescan:
			everything()
		case <-quiet.C():
			// Quiet: read everything again (a file created in a folder
			// made in the same burst, before its watch was armed).
			quiet.stop()
			everything()
		}
	}
}

// takeEvents takes ev and every event already queued behind it, so that
// what they touched is read at once: the observed paths, and whether
// watches must be re-armed.
func (s *Source) takeEvents(ev fsnotify.Event, events <-chan fsnotify.Event) (touched map[string]bool, rearm bool) {
	touched = map[string]bool{}
	rearm = s.touched(ev, touched)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return touched, rearm
			}
			rearm = s.touched(ev, touched) || rearm
		default:
			return touched, rearm
		}
	}
}

// quietTimer fires once a burst of events has been quiet for debounce,
// or maxDelay after the burst began, whichever is first.
type quietTimer struct {
	debounce, maxDelay time.Duration
	timer              *time.Timer
	start              time.Time
}

// kick notes an event: the first of a burst starts the timer, later ones
// push it back until maxDelay has passed.
func (q *quietTimer) kick() {
	now := time.Now()
	if q.timer == nil {
		q.start = now
		q.timer = time.NewTimer(q.debounce)
		return
	}
	if now.Sub(q.start) >= q.maxDelay {
		return // let the pending timer fire
	}
	if !q.timer.Stop() {
		select {
		case <-q.timer.C:
		default:
		}
	}
	q.timer.Reset(q.debounce)
}

// C fires when the burst is quiet (nil: no burst).
func (q *quietTimer) C() <-chan time.Time {
	if q.timer == nil {
		return nil
	}
	return q.timer.C
}

// stop ends the burst after C fired.
func (q *quietTimer) stop() { q.timer = nil }

// touched adds the observed paths an event concerns (the file itself, or
// every file under a directory it names) and says whether watches must be
// re-armed (something was created, removed or renamed).
func (s *Source) touched(ev fsnotify.Event, into map[string]bool) (rearm bool) {
	for _, p := range s.paths() {
		abs := s.abs(p)
		if abs == ev.Name || strings.HasPrefix(abs, ev.Name+string(filepath.Separator)) {
			into[p] = true
		}
	}
	return ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// paths are the files observed: Options.Paths, or in Tree mode every
// regular file under the root now and every one seen before (so its
// removal is seen too).
func (s *Source) paths() []string {
	if !s.opts.Tree {
		return s.opts.Paths
	}
	s.mu.Lock()
	seen := map[string]bool{}
	for p := range s.last {
		seen[p] = true
	}
	s.mu.Unlock()
	_ = filepath.WalkDir(s.opts.Root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if rel, err := filepath.Rel(s.opts.Root, p); err == nil {
				seen[filepath.ToSlash(rel)] = true
			}
		}
		return nil
	})
	return keys(seen)
}

func (s *Source) abs(p string) string { return filepath.Join(s.opts.Root, filepath.FromSlash(p)) }

// arm makes sure every directory on the way to every observed file is
// watched: for a directory that does not exist yet, its nearest existing
// ancestor is watched so its creation is seen.
func (s *Source) arm(w *fsnotify.Watcher, watched map[string]bool) {
	want := map[string]bool{}
	if s.opts.Tree {
		_ = filepath.WalkDir(s.opts.Root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				want[p] = true
			}
			return nil
		})
	}
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

// scan re-reads the given observed files and emits those that changed
// (all of them when initial is set).
func (s *Source) scan(ctx context.Context, out chan<- observe.Observation, paths []string, initial bool) {
	s.scanKept(ctx, out, paths, initial, nil)
}

// scanKept is scan, except that a file for which kept (when not nil),
// asked after the file was read, says false is neither emitted nor
// remembered.
func (s *Source) scanKept(ctx context.Context, out chan<- observe.Observation, paths []string, initial bool, kept func(p string) bool) {
	paths = append([]string(nil), paths...)
	sort.Strings(paths)
	for _, p := range paths {
		f := Read(s.opts.Root, p)
		if kept != nil && !kept(p) {
			continue
		}
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
