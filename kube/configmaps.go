package kube

import (
	"context"
	"log/slog"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/labhub/labmate/internal/latest"
)

// ConfigMapWatch is an informer on the ConfigMaps of one namespace, or
// on one of them by name: the class's records and its lab object travel
// as ConfigMaps. It is what client-go's informer factory builds for
// Core().V1().ConfigMaps(), without the factory, which would compile an
// informer for every API group into labmate (Interface says why).
type ConfigMapWatch struct {
	// Changed receives a signal after objects were added, updated or
	// deleted; signals not yet read are one.
	Changed <-chan struct{}
	// Errors receives the newest watch error not yet read; the
	// informer retries on its own.
	Errors <-chan error
	// Synced is closed once the first list arrived (never, when ctx
	// ended before).
	Synced <-chan struct{}

	ns     string
	inf    cache.SharedIndexInformer
	lister corev1listers.ConfigMapLister
	done   sync.WaitGroup
}

// WatchConfigMaps watches the ConfigMaps of ns until ctx ends; with name
// set, only that one (a field selector on metadata.name: what a Role
// with resourceNames lets its holder list and watch).
func WatchConfigMaps(ctx context.Context, cs Interface, ns, name string) *ConfigMapWatch {
	cms := cs.CoreV1().ConfigMaps(ns)
	narrow := func(o metav1.ListOptions) metav1.ListOptions {
		if name != "" {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}
		return o
	}
	changed, errs, synced := make(chan struct{}, 1), make(chan error, 1), make(chan struct{})
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cms.List(ctx, narrow(o))
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := cms.Watch(ctx, narrow(o))
			if err != nil {
				// The reflector retries a refused watch itself, forever
				// and silently (client-go v0.34 tools/cache/reflector.go,
				// watch: isWatchErrorRetriable), never calling the watch
				// error handler: a stopped API server would go unsaid.
				latest.Offer(errs, err)
			}
			return w, err
		},
	}
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke() },
		UpdateFunc: func(any, any) { poke() },
		DeleteFunc: func(any) { poke() },
	})
	_ = inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) { latest.Offer(errs, err) })
	w := &ConfigMapWatch{Changed: changed, Errors: errs, Synced: synced, ns: ns, inf: inf,
		lister: corev1listers.NewConfigMapLister(inf.GetIndexer())}
	w.done.Go(func() { inf.RunWithContext(ctx) })
	w.done.Go(func() {
		if cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			close(synced)
		}
	})
	return w
}

// List is every ConfigMap the watch holds now.
func (w *ConfigMapWatch) List() ([]*corev1.ConfigMap, error) {
	return w.lister.ConfigMaps(w.ns).List(labels.Everything())
}

// Get is the ConfigMap of that name the watch holds now.
func (w *ConfigMapWatch) Get(name string) (*corev1.ConfigMap, error) {
	return w.lister.ConfigMaps(w.ns).Get(name)
}

// Relisted reports whether the informer has listed since it started: a
// list after a watch error says the connection works again.
func (w *ConfigMapWatch) Relisted() bool { return w.inf.LastSyncResourceVersion() != "" }

// Wait returns once the informer stopped (after ctx ended).
func (w *ConfigMapWatch) Wait() { w.done.Wait() }

// OnConfigMap watches the ConfigMap name of ns (WatchConfigMaps with a
// name) and, from a goroutine of its own, calls changed with it each
// time it changes while it is there (gone is no call; watch errors are
// the informer's to retry), until ctx ends; then ended, once the
// informer stopped. A panic in changed ends the watch, logged as what's.
// Idle while the object does not change.
func OnConfigMap(ctx context.Context, cs Interface, ns, name, what string, changed func(*corev1.ConfigMap), ended func()) {
	w := WatchConfigMaps(ctx, cs, ns, name)
	go func() {
		defer ended()
		defer func() {
			if r := recover(); r != nil {
				slog.Error(what+" panicked", "panic", r)
			}
		}()
		for {
			select {
			case <-ctx.Done():
				w.Wait()
				return
			case <-w.Errors:
			case <-w.Changed:
				if o, err := w.Get(name); err == nil {
					changed(o)
				}
			}
		}
	}()
}
