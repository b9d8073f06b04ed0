// Package latest hands values to a reader through a one-slot channel when
// only the newest one matters (reports, a class, a connection status): a
// slow reader gets the newest value, never a backlog, and the writer never
// waits for it.
package latest

import "context"

// Send puts v into ch, a channel of capacity one, replacing the value the
// reader has not taken yet. With a single writer it never blocks; with
// several it waits for a free slot until ctx ends.
func Send[T any](ctx context.Context, ch chan T, v T) {
	Merge(ctx, ch, v, nil)
}

// Merge is Send that, when it replaces a value the reader never took,
// sends merge(unread) instead of v, so what the reader missed can be
// folded into what it gets (merge nil: v as it is).
func Merge[T any](ctx context.Context, ch chan T, v T, merge func(unread T) T) {
	select {
	case ch <- v:
		return
	default:
	}
	select {
	case old := <-ch:
		if merge != nil {
			v = merge(old)
		}
	default:
	}
	select {
	case ch <- v:
	case <-ctx.Done():
	}
}

// Offer is Send for a writer that has no context: the only writer of ch,
// which therefore never blocks.
func Offer[T any](ch chan T, v T) {
	Send(context.Background(), ch, v)
}
