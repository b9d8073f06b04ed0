package tui

import "github.com/labhub/labmate/class/learner"

// Publishing makes the TUI show the class publisher's status and publish
// the learner's page and hints, besides what it did with them before.
func (opts Options) Publishing(pub *learner.Publisher) Options {
	opts.Class = pub.Statuses()
	if pub.Acks() != nil {
		opts.Hands = pub
	}
	onProgress, onPage := opts.OnProgress, opts.OnPage
	opts.OnProgress = func(step, hints int, solution bool) error {
		pub.Publish(learner.Update{Hints: &learner.Hints{Step: step, Seen: hints, Solution: solution}})
		if onProgress != nil {
			return onProgress(step, hints, solution)
		}
		return nil
	}
	opts.OnPage = func(page int) error {
		pub.Publish(learner.Update{Page: &page})
		if onPage != nil {
			return onPage(page)
		}
		return nil
	}
	return opts
}
