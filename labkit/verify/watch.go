package verify

import (
	"context"
	"time"

	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/files"
)

// Watch calls run once, then again after every change to the lab
// directory dir settles (an author's save), until ctx ends: the inner
// loop of writing a lab. The lab's files are watched by the file source
// labmate watches a learner's files with, over the whole tree. Errors
// starting the watch are returned.
func Watch(ctx context.Context, dir string, run func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src := files.New(files.Options{Root: dir, Tree: true})
	obs := make(chan observe.Observation, 64)
	failed := make(chan error, 1)
	go func() { failed <- src.Run(ctx, obs) }()
	synced := false
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return err
		case o := <-obs:
			switch {
			case o.Synced != nil:
				synced = true
				run()
			case synced && o.File != nil:
				settle = time.After(300 * time.Millisecond)
			}
		case <-settle:
			settle = nil
			run()
		}
	}
}
