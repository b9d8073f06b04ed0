package classlab

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/internal/latest"
	"github.com/labhub/labmate/kube"
)

// LabNotice is what a learner's watch of the class's lab saw: a verified
// lab other than the one the learner runs, or an object that was refused
// (Err: class.LabTampered, class.LabUnreadable, ...; the learner keeps
// what they have).
type LabNotice struct {
	Lab class.LabArchive
	Err error
}

// WatchLab watches the class's lab object (by name: what the learner's
// Role allows list and watch on) and delivers each verified lab whose
// digest is not have, newest first (latest wins), and each refused one.
// It is idle while the object does not change; the channel closes when
// ctx ends. Watch errors are retried by the informer and not delivered:
// the learner runs the lab they have either way.
func WatchLab(ctx context.Context, cs kube.Interface, ns, have string) <-chan LabNotice {
	out := make(chan LabNotice, 1)
	last := have
	// Gone is no call: the learner keeps what they run.
	kube.OnConfigMap(ctx, cs, ns, class.LabObject, "class lab watch", func(o *corev1.ConfigMap) {
		a, err := class.ReadLabObject(o)
		if err == nil && a.Sum == last {
			return
		}
		if err == nil {
			last = a.Sum
		}
		latest.Send(ctx, out, LabNotice{Lab: a, Err: err})
	}, func() { close(out) })
	return out
}
