package learner

// A learner's progress file, followed: what other terminals of the same
// learner write there reaches this run's publisher while it runs.

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/fsnotify/fsnotify"

	"github.com/labhub/labmate/state"
)

// follow keeps pub and the learner's progress file in step until ctx
// ends: each time the file changes (`labmate catch-up` or `labmate
// class hand` in another terminal, or this labmate itself) it is read
// again and its caught-up steps and newest hand act are published
// (the tracker takes each once, and a hand act only when it is newer
// than the last it took); the hand acts of this run (acts) are written
// to the file, so another terminal and the next start see them. The
// file is written by rename, so its directory is watched and events
// are filtered by name; a burst of events is read once. Without
// fsnotify the file is not followed (the next start reads it) and acts
// are still written.
func follow(ctx context.Context, store *state.Store, pub *Publisher, acts <-chan state.HandAct) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("class progress follower panicked", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	var events <-chan fsnotify.Event
	var errs <-chan error
	dir, name := filepath.Dir(store.Path), filepath.Base(store.Path)
	if w, err := watchDir(dir); err != nil {
		slog.Warn("class: the progress file is not followed", "dir", dir, "err", err)
	} else {
		defer w.Close()
		events, errs = w.Events, w.Errors
	}
	read := func() {
		f, err := store.Load()
		if err != nil {
			slog.Warn("class: reading the progress file", "err", err)
			return
		}
		followed(func(u Update) bool { pub.Publish(u); return true }, f.Progress)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-acts:
			if _, err := store.RecordHand(a); err != nil {
				slog.Warn("class: recording the hand", "err", err)
			}
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			mine := ours(ev, name)
			if drain(events, name) || mine {
				read()
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// Events may have been lost (overflow): read the file again.
			slog.Warn("class: watching the progress file", "err", err)
			read()
		}
	}
}

// watchDir watches dir, made first when it is not there yet (the store
// makes it on its first write).
func watchDir(dir string) (*fsnotify.Watcher, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// ours reports whether ev changed the file called name: written in
// place, or renamed or created there.
func ours(ev fsnotify.Event, name string) bool {
	return filepath.Base(ev.Name) == name && ev.Op != fsnotify.Chmod
}

// drain takes the events already queued (one burst) and reports whether
// one of them changed the file called name.
func drain(events <-chan fsnotify.Event, name string) bool {
	seen := false
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return seen
			}
			seen = ours(ev, name) || seen
		default:
			return seen
		}
	}
}

// followed hands what a progress file says a class cares about and
// another terminal may change to apply: the steps catch-up brought to
// their reference and the newest hand act. Both are idempotent for the
// tracker.
func followed(apply func(Update) bool, p state.Progress) {
	for step := range p.CaughtUpAt {
		apply(Update{CaughtUp: step})
	}
	if p.Hand != nil {
		apply(Update{Hand: HandOf(*p.Hand)})
	}
}
