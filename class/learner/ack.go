package learner

import (
	"context"

	corev1 "k8s.io/api/core/v1"

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
	var last class.Ack
	kube.OnConfigMap(ctx, cs, ns, class.AckObject(learnerID), "class ack watch", func(o *corev1.ConfigMap) {
		a, ok := class.ReadAck(o, lab)
		if !ok || a.Step == last.Step && a.Raised.Equal(last.Raised) && a.At.Equal(last.At) {
			return
		}
		last = a
		latest.Send(ctx, out, a)
	}, func() { close(out) })
	return out
}
