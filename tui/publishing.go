package tui

import "github.com/labhub/labmate/class"

// Publishing makes the TUI show the class publisher's status and publish
// the learner's page and hints, besides what it did with them before.
func (opts Options) Publishing(pub *class.Publisher) Options {
	opts.Class = pub.Statuses()
	onProgress, onPage := opts.OnProgress, opts.OnPage
	opts.OnProgress = func(step, hints int, solution bool) error {
		pub.Publish(class.Update{Hints: &class.Hints{Step: step, Seen: hints, Solution: solution}})
		if onProgress != nil {
			return onProgress(step, hints, solution)
		}
		return nil
	}
	opts.OnPage = func(page int) error {
		pub.Publish(class.Update{Page: &page})
		if onPage != nil {
			return onPage(page)
		}
		return nil
	}
	return opts
}
