package class

import (
	"context"
	"log/slog"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/tools/cache"

	"github.com/labhub/labmate/internal/kubeclient"
	"github.com/labhub/labmate/internal/latest"
)

// LabNotice is what a learner's watch of the class's lab saw: a verified
// lab other than the one the learner runs, or an object that was refused
// (Err: LabTampered, LabUnreadable, ...; the learner keeps what they have).
type LabNotice struct {
	Lab LabArchive
	Err error
}

// WatchLab watches the class's lab object (by name: a field selector on
// metadata.name, which is what the learner's Role allows list and watch
// on) and delivers each verified lab whose digest is not have, newest
// first (latest wins), and each refused one. It is idle while the object
// does not change; the channel closes when ctx ends. Watch errors are
// retried by the informer and not delivered: the learner runs the lab
// they have either way.
func WatchLab(ctx context.Context, cs kubeclient.Interface, ns, have string) <-chan LabNotice {
	out := make(chan LabNotice, 1)
	inf := configMapInformer(cs, ns, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", LabObject).String()
	})
	seen := make(chan *corev1.ConfigMap, 1)
	offer := func(obj any) {
		if o, ok := obj.(*corev1.ConfigMap); ok && o.Name == LabObject {
			latest.Offer(seen, o)
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    offer,
		UpdateFunc: func(_, obj any) { offer(obj) },
	})
	_ = inf.SetWatchErrorHandler(func(*cache.Reflector, error) {})
	var informer sync.WaitGroup
	informer.Go(func() { inf.RunWithContext(ctx) })
	go func() {
		defer close(out)
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class lab watch panicked", "panic", r)
			}
		}()
		last := have
		for {
			select {
			case <-ctx.Done():
				informer.Wait()
				return
			case o := <-seen:
				a, err := ReadLabObject(o)
				if err == nil && a.Sum == last {
					continue
				}
				if err == nil {
					last = a.Sum
				}
				latest.Send(ctx, out, LabNotice{Lab: a, Err: err})
			}
		}
	}()
	return out
}
