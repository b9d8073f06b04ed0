package admin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/internal/latest"
	"github.com/labhub/labmate/kube"
)

// Probe intervals of a watch whose class is not current: while the class
// cluster is lost, a probe every ProbeLost, so the board is current again
// within seconds of its return; while it refuses these credentials,
// every ProbeDenied (someone may fix the RBAC). While the watch works,
// nothing is probed.
const (
	ProbeLost   = 2 * time.Second
	ProbeDenied = 15 * time.Second
	// probeTimeout bounds one probe.
	probeTimeout = 5 * time.Second
)

// WatchConfig is a watch of a class.
type WatchConfig struct {
	Client    kube.Interface
	Namespace string
	// Lab is the lab whose records are delivered ("" for every lab).
	Lab string
	// Clock is the probes' clock and the time of the class (the real
	// one when nil).
	Clock clock.Clock
}

// Watch watches the ConfigMaps of the class namespace and delivers the
// whole class after every change (latest wins: a slow reader gets the
// newest Class, never a backlog). With no change in the class it does
// nothing. The channel closes when ctx ends.
//
// When the watch fails, the class it delivers says so (Err, Link) and
// since when its records are not current (StaleSince), and keeps them.
// client-go's informer retries on its own, backing off to 30 s and more
// (its reflector's backoff), so a board would show an old class for a
// minute after the class cluster came back: while the class is not
// current, Watch probes the cluster itself, and once it answers, starts
// the informer again, whose first list makes the class current.
func Watch(ctx context.Context, cfg WatchConfig) <-chan class.Class {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	out := make(chan class.Class, 1)
	go func() {
		defer close(out)
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class watch panicked", "panic", r)
			}
		}()
		(&watcher{cfg: cfg, out: out, collector: &class.Collector{Now: cfg.Clock.Now}}).run(ctx)
	}()
	return out
}

type watcher struct {
	cfg       WatchConfig
	out       chan class.Class
	collector *class.Collector

	w      *kube.ConfigMapWatch
	stop   context.CancelFunc
	synced <-chan struct{}

	// last is the newest class read (Synced once one was); err, link
	// and staleSince say how current it is.
	last       class.Class
	err        error
	link       class.Link
	staleSince time.Time
	probe      clock.Timer
}

// start starts an informer (again).
func (w *watcher) start(ctx context.Context) {
	if w.stop != nil {
		w.stop()
		w.w.Wait()
	}
	var wctx context.Context
	wctx, w.stop = context.WithCancel(ctx)
	w.w = kube.WatchConfigMaps(wctx, w.cfg.Client, w.cfg.Namespace, "")
	w.synced = w.w.Synced
}

func (w *watcher) run(ctx context.Context) {
	w.start(ctx)
	defer func() {
		w.stop()
		w.w.Wait()
		if w.probe != nil {
			w.probe.Stop()
		}
	}()
	for {
		var probed <-chan time.Time
		if w.probe != nil {
			probed = w.probe.C()
		}
		select {
		case <-ctx.Done():
			return
		case <-w.w.Changed:
			if w.synced != nil {
				continue // a new informer filling up: the class shown stays until it listed
			}
			w.collect()
		case <-w.synced:
			w.synced = nil
			w.recovered()
			w.collect()
		case err := <-w.w.Errors:
			if passing(err) {
				continue
			}
			w.failed(err)
		case <-probed:
			w.probe = nil
			if err := w.ping(ctx); err != nil {
				w.failed(err)
				continue
			}
			// The cluster answers: a new informer lists at once,
			// where the old one may sleep through its backoff.
			w.start(ctx)
			continue
		}
		w.send(ctx)
	}
}

// collect reads the informer's objects into the class.
func (w *watcher) collect() {
	objs, err := w.w.List()
	if err != nil {
		return
	}
	c := w.collector.Collect(objs, w.cfg.Lab)
	c.Synced = true
	w.last = c
}

// passing reports whether a watch error is one the informer gets past
// at once, with the class cluster there (a watch that ended, a resource
// version too old to resume from): its next list says the rest.
func passing(err error) bool {
	return errors.Is(err, io.EOF) || apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// failed notes a failure of the watch or a probe and arms the probe.
func (w *watcher) failed(err error) {
	if w.err == nil {
		w.staleSince = w.cfg.Clock.Now()
	}
	w.err = err
	w.link = class.Lost
	if c := kube.CauseOf(err); c == kube.Forbidden || c == kube.Unauthorized {
		w.link = class.Denied
	}
	if w.probe == nil {
		every := ProbeLost
		if w.link == class.Denied {
			every = ProbeDenied
		}
		w.probe = w.cfg.Clock.NewTimer(every)
	}
}

// recovered notes a first list: the class is current.
func (w *watcher) recovered() {
	w.err, w.link, w.staleSince = nil, class.Current, time.Time{}
	if w.probe != nil {
		w.probe.Stop()
		w.probe = nil
	}
}

// ping asks the class cluster for one ConfigMap of the namespace: what
// the board's watch needs, so a 403 says these credentials cannot watch
// the class.
func (w *watcher) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := w.cfg.Client.CoreV1().ConfigMaps(w.cfg.Namespace).List(ctx, metav1.ListOptions{Limit: 1})
	return err
}

// send delivers the class as it stands.
func (w *watcher) send(ctx context.Context) {
	c := w.last
	c.Records = slices.Clone(c.Records)
	c.Err, c.Link, c.StaleSince, c.At = w.err, w.link, w.staleSince, w.cfg.Clock.Now()
	latest.Send(ctx, w.out, c)
}

// List reads every record of a lab ("" for all) in the class namespace
// once. A namespace with no class in it is NoClass, a lab the class has
// no record of NoLab: a typo is said, never shown as an empty class.
func List(ctx context.Context, cs kube.Interface, ns, lab string) (class.Class, error) {
	l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if apierrors.IsForbidden(err) {
		// A namespace the instructor may not read: most often a typo
		// of the one they were given.
		e := noClass(ctx, cs, ns).(NoClass)
		e.Denied = true
		return class.Class{}, e
	}
	if err != nil {
		return class.Class{}, err
	}
	objs := make([]*corev1.ConfigMap, 0, len(l.Items))
	for i := range l.Items {
		objs = append(objs, &l.Items[i])
	}
	all := class.Collect(objs, "")
	if len(all.Records) == 0 && !all.HasInfo && all.Lab.ID == "" {
		return class.Class{}, noClass(ctx, cs, ns)
	}
	c := all
	if lab != "" {
		c = class.Collect(objs, lab)
		if len(c.Records) == 0 {
			return class.Class{}, NoLab{Namespace: ns, Lab: lab, Have: Labs(all)}
		}
	}
	c.Synced, c.At = true, time.Now()
	return c, nil
}

// Labs are the labs a class is for (its class object's) and has records
// of, sorted.
func Labs(c class.Class) []string {
	set := map[string]bool{}
	for _, l := range c.Info.Labs {
		set[l] = true
	}
	for _, r := range c.Records {
		set[r.Lab] = true
	}
	if c.Lab.ID != "" {
		set[c.Lab.ID] = true
	}
	return sortedKeys(set)
}
