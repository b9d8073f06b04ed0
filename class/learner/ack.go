package learner

import (
	"context"
	"log/slog"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/internal/latest"
	"github.com/labhub/labmate/kube"
)

// WatchAcks watches the learner's acknowledgement object (by name: what
// the learner's Role allows get, list and watch on) and delivers lab's
// newest acknowledgement each time it changes, latest wins. It is idle
// while the object does not change; the channel closes when ctx ends.
// Watch errors are retried by the informer and not delivered: a hand
// simply shows no acknowledgement while the class is away.
func WatchAcks(ctx context.Context, cs kube.Interface, ns, learnerID, lab string) <-chan class.Ack {
	out := make(chan class.Ack, 1)
	name := class.AckObject(learnerID)
	w := kube.WatchConfigMaps(ctx, cs, ns, name)
	go func() {
		defer close(out)
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class ack watch panicked", "panic", r)
			}
		}()
		var last class.Ack
		for {
			select {
			case <-ctx.Done():
				w.Wait()
				return
			case <-w.Errors:
			case <-w.Changed:
				o, err := w.Get(name)
				if err != nil {
					continue
				}
				a, ok := class.ReadAck(o, lab)
				if !ok || a.Step == last.Step && a.Raised.Equal(last.Raised) && a.At.Equal(last.At) {
					continue
				}
				last = a
				latest.Send(ctx, out, a)
			}
		}
	}()
	return out
}
