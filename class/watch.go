package class

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/labhub/labmate/internal/kubeclient"
	"github.com/labhub/labmate/internal/latest"
)

// Class is the board's view of a class at one moment.
type Class struct {
	// Records has one record per record object, its learner and lab
	// from the object's name; those whose content is not believed carry
	// a Flag and no steps.
	Records []Record
	// Synced is true once the informer's first list arrived.
	Synced bool
	// Err is the newest watch error (nil once the watch works again).
	Err error
	At  time.Time
	// Lab is the lab the class carries (its ID, version and digest, no
	// bytes; zero when the class carries none).
	Lab LabArchive
}

// Watch runs an informer on the ConfigMaps of the class namespace and
// delivers the whole class after every change (latest wins: a slow reader
// gets the newest Class, never a backlog). It is event-driven: with no
// change in the class it does nothing. The channel closes when ctx ends.
func Watch(ctx context.Context, cs kubeclient.Interface, ns, lab string) <-chan Class {
	out := make(chan Class, 1)
	// Every ConfigMap of the namespace, not a label selector: a learner
	// may patch their record's labels away (isRecord).
	inf := configMapInformer(cs, ns, nil)
	lister := corev1listers.NewConfigMapLister(inf.GetIndexer())
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	var lastErr error
	errCh := make(chan error, 1)
	_ = inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) { latest.Offer(errCh, err) })
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke() },
		UpdateFunc: func(any, any) { poke() },
		DeleteFunc: func(any) { poke() },
	})
	var informer sync.WaitGroup
	informer.Go(func() { inf.RunWithContext(ctx) })
	go func() {
		defer close(out)
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class watch panicked", "panic", r)
			}
		}()
		memo := &recordMemo{}
		synced := false
		syncedCh := make(chan struct{})
		go func() {
			if cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
				close(syncedCh)
			}
		}()
		for {
			select {
			case <-ctx.Done():
				informer.Wait()
				return
			case <-changed:
			case <-syncedCh:
				synced, syncedCh = true, nil
			case err := <-errCh:
				lastErr = err
			}
			if !synced {
				if lastErr != nil {
					latest.Send(ctx, out, Class{Err: lastErr, At: time.Now()})
				}
				continue
			}
			objs, err := lister.ConfigMaps(ns).List(labels.Everything())
			if err == nil && lastErr != nil && inf.LastSyncResourceVersion() != "" {
				// The informer relisted after the error: it works again.
				lastErr = nil
			}
			c := memo.collect(objs, lab)
			c.Synced, c.Err, c.At = true, lastErr, time.Now()
			latest.Send(ctx, out, c)
		}
	}()
	return out
}

// recordMemo keeps each object's decoded record by resource version, so
// one learner's change costs one decode, not one per learner.
// A change of the class's lab empties it: whether a record's lab is
// known depends on it.
type recordMemo struct {
	classLab string
	entries  map[string]memoEntry
}

type memoEntry struct {
	rv  string
	rec Record
	ok  bool
}

func (m *recordMemo) collect(objs []*corev1.ConfigMap, lab string) Class {
	live := make(map[string]bool, len(objs))
	if cl := classLabOf(objs).ID; m.entries == nil || cl != m.classLab {
		m.classLab, m.entries = cl, map[string]memoEntry{}
	}
	read := func(o *corev1.ConfigMap, known func(string) bool) (Record, bool) {
		live[o.Name] = true
		if e, ok := m.entries[o.Name]; ok && e.rv == o.ResourceVersion && o.ResourceVersion != "" {
			return e.rec, e.ok
		}
		r, ok := readObject(o, known)
		m.entries[o.Name] = memoEntry{rv: o.ResourceVersion, rec: r, ok: ok}
		return r, ok
	}
	c := collect(objs, lab, read)
	for name := range m.entries {
		if !live[name] {
			delete(m.entries, name)
		}
	}
	return c
}

// Collect reads the record objects of a lab ("" for every lab) into a
// Class, sorted by learner then lab.
func Collect(objs []*corev1.ConfigMap, lab string) Class {
	return collect(objs, lab, readObject)
}

func collect(objs []*corev1.ConfigMap, lab string, read func(*corev1.ConfigMap, func(string) bool) (Record, bool)) Class {
	c := Class{Lab: classLabOf(objs)}
	known := knownLabs(c.Lab.ID)
	for _, o := range objs {
		if l, ok := isRecord(o, known); !ok || lab != "" && l != lab {
			continue
		}
		if r, ok := read(o, known); ok {
			c.Records = append(c.Records, r)
		}
	}
	sort.Slice(c.Records, func(i, j int) bool {
		a, b := c.Records[i], c.Records[j]
		if a.Learner != b.Learner {
			return a.Learner < b.Learner
		}
		return a.Lab < b.Lab
	})
	return c
}
