package files

import (
	"context"
	"os"
	"time"

	"github.com/labhub/labmate/observe"
)

// Polling, for lab roots where file events never come.
//
// On NFS, SMB/CIFS, 9p (WSL2's /mnt/c) and FUSE mounts (VM and Docker
// Desktop shared folders) inotify reports only changes made through this
// kernel, so an edit made on the host or another machine is never seen:
// a watcher there goes quiet. The poller instead stats only the lab's
// files (never a tree walk) every PollInterval and reads a file only when
// its size, mtime, mode or inode moved; every pollFullEvery-th look it
// reads them all anyway, for filesystems whose mtime is too coarse to
// show two quick saves of the same size. Idle, that is a handful of stat
// calls four times a second.

// pollFullEvery is how many looks pass between reads of every file.
const pollFullEvery = 8

// statKey is what a look at a file compares.
type statKey struct {
	exists bool
	size   int64
	mtime  time.Time
	mode   os.FileMode
	ino    uint64
}

func (s *Source) look(p string) statKey {
	fi, err := os.Stat(s.abs(p))
	if err != nil {
		return statKey{}
	}
	return statKey{exists: true, size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode(), ino: inode(fi)}
}

// forgotten is the look of a file whose last read did not count: no file,
// present or absent, looks like it, so the next tick sees it move.
var forgotten = statKey{size: -1}

// poll is Run without file events.
func (s *Source) poll(ctx context.Context, out chan<- observe.Observation) error {
	paths := s.paths()
	looks := make(map[string]statKey, len(paths))
	for _, p := range paths {
		looks[p] = s.look(p)
	}
	s.scan(ctx, out, paths, true)
	if !s.emit(ctx, out, observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: Name}}) {
		return nil
	}
	tick := time.NewTicker(s.opts.PollInterval)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-s.rescan:
			s.scan(ctx, out, paths, false)
			continue
		case <-tick.C:
		}
		if s.opts.Tree {
			paths = s.paths() // files made since
		}
		var moved []string
		for _, p := range paths {
			if k := s.look(p); k != looks[p] {
				looks[p] = k
				moved = append(moved, p)
			}
		}
		if len(moved) == 0 && n%pollFullEvery == 0 {
			// The content changed without its size or mtime moving:
			// treated like any change, it must hold still before it is
			// emitted (it may be read in the middle of a write).
			for _, p := range paths {
				if s.differs(p) {
					moved = append(moved, p)
				}
			}
		}
		if len(moved) == 0 {
			continue
		}
		// Something is being written: read it once it has held still
		// for the debounce window, so a save caught half way is not
		// what the checks see.
		if !s.settle(ctx, moved, looks) {
			return nil
		}
		// A write that began right after the file held still may have
		// been read half done: a file that moved while it was read is not
		// emitted, and its look is forgotten so that the next tick sees
		// it move and lets it settle again.
		s.scanKept(ctx, out, moved, false, func(p string) bool {
			if s.look(p) != looks[p] {
				looks[p] = forgotten
				return false
			}
			return true
		})
	}
}

// settle waits until the moved files look the same twice Debounce apart,
// or MaxDelay has passed. It returns false when ctx ended.
func (s *Source) settle(ctx context.Context, moved []string, looks map[string]statKey) bool {
	deadline := time.Now().Add(s.opts.MaxDelay)
	t := time.NewTimer(s.opts.Debounce)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		still := true
		for _, p := range moved {
			if k := s.look(p); k != looks[p] {
				looks[p] = k
				still = false
			}
		}
		if still || !time.Now().Before(deadline) {
			return true
		}
		t.Reset(s.opts.Debounce)
	}
}

// differs reads p and reports whether it differs from what was last
// emitted.
func (s *Source) differs(p string) bool {
	f := Read(s.opts.Root, p)
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, seen := s.last[p]
	return !seen || !sameFile(prev, f)
}
