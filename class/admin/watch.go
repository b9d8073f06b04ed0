package admin

import (
	"context"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/internal/latest"
	"github.com/labhub/labmate/kube"
)

// Watch watches the ConfigMaps of the class namespace and delivers the
// whole class after every change (latest wins: a slow reader gets the
// newest Class, never a backlog). It is event-driven: with no change in
// the class it does nothing. The channel closes when ctx ends.
func Watch(ctx context.Context, cs kube.Interface, ns, lab string) <-chan class.Class {
	out := make(chan class.Class, 1)
	// Every ConfigMap of the namespace, not a label selector: a learner
	// may patch their record's labels away (class.Collect).
	w := kube.WatchConfigMaps(ctx, cs, ns, "")
	go func() {
		defer close(out)
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class watch panicked", "panic", r)
			}
		}()
		var lastErr error
		collector := &class.Collector{}
		synced, syncedCh := false, w.Synced
		for {
			select {
			case <-ctx.Done():
				w.Wait()
				return
			case <-w.Changed:
			case <-syncedCh:
				synced, syncedCh = true, nil
			case err := <-w.Errors:
				lastErr = err
			}
			if !synced {
				if lastErr != nil {
					latest.Send(ctx, out, class.Class{Err: lastErr, At: time.Now()})
				}
				continue
			}
			objs, err := w.List()
			if err == nil && lastErr != nil && w.Relisted() {
				// The informer relisted after the error: it works again.
				lastErr = nil
			}
			c := collector.Collect(objs, lab)
			c.Synced, c.Err, c.At = true, lastErr, time.Now()
			latest.Send(ctx, out, c)
		}
	}()
	return out
}

// List reads every record of a lab ("" for all) in the class namespace once.
func List(ctx context.Context, cs kube.Interface, ns, lab string) (class.Class, error) {
	l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return class.Class{}, err
	}
	objs := make([]*corev1.ConfigMap, 0, len(l.Items))
	for i := range l.Items {
		objs = append(objs, &l.Items[i])
	}
	c := class.Collect(objs, lab)
	c.Synced, c.At = true, time.Now()
	return c, nil
}
