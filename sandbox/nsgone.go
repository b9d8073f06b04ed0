package sandbox

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// deleteNamespaces deletes the namespaces and returns once they are gone.
//
// kube-controller-manager's namespace controller waits 5 s after it sees
// a namespace deleted before it empties it (namespaceDeletionGracePeriod,
// there for HA API servers and etcd followers to see the deletion first;
// a sandbox has one of each), and a lab's proof resets the sandbox before
// every near-miss it tries: that wait was half of each trial. So labmate
// does what the controller would, at once: the namespace deleted first
// (Terminating: the API server's NamespaceLifecycle admission refuses new
// content in it from then on), then every object of every namespaced
// resource the server lists in it deleted, waited for until none is
// left, and only then the namespace's "kubernetes" finalizer removed
// through its finalize subresource, which is what the controller does
// last. Nothing can be left behind in etcd to reappear in a namespace of
// the same name: the finalizer goes only once every list is empty.
//
// Whatever this cannot do (discovery failing, an object whose own
// finalizer outlives purgeWait, the finalize call refused), the
// controller still does: deleteNamespaces then waits for it, bounded by
// ctx.
func deleteNamespaces(ctx context.Context, server string, cs kube.Interface, dyn dynamic.Interface, names []string) error {
	// A namespace that is not there (the trial never made it) has
	// nothing to delete or wait for.
	names = slices.DeleteFunc(slices.Clone(names), func(ns string) bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if len(names) == 0 {
		return nil
	}
	at := time.Now()
	took := func(part string) {
		slog.Debug("sandbox reset", "part", part, "ms", time.Since(at).Milliseconds())
		at = time.Now()
	}
	if d := gone.wait(server, names, at); d > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
		took("namespaces.reuse")
	}
	for _, ns := range names {
		if err := emptyNamespace(ctx, cs, ns); err != nil && !apierrors.IsNotFound(err) {
			return wrapMsg(err, "sandbox.err.delete_namespace", "namespace", ns)
		}
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return wrapMsg(err, "sandbox.err.delete_namespace", "namespace", ns)
		}
	}
	took("namespaces.delete")
	if gvrs, err := namespacedResources(cs.Discovery()); err == nil {
		took("namespaces.discovery")
		pctx, cancel := context.WithTimeout(ctx, purgeWait)
		for _, ns := range names {
			if purge(pctx, dyn, gvrs, ns) == nil {
				finalize(pctx, cs, ns)
			}
		}
		cancel()
		took("namespaces.purge")
	}
	defer took("namespaces.gone")
	var left []string
	return poll(ctx, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for _, ns := range names {
			if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				left = append(left, ns)
			}
		}
		if len(left) == 0 {
			gone.saw(server, names, time.Now())
		}
		return len(left) == 0, nil
	}, func() error {
		return errors.New(content.Msg("sandbox.fail.namespaces_left", "namespaces", strings.Join(left, ", "), "timeout", ResetTimeout))
	})
}

// The namespace controller empties a deleted namespace by its name, not
// its UID. It takes a terminating namespace's key 5 s after each change
// it sees of it (kubernetes v1.34, pkg/controller/namespace/
// namespace_controller.go, enqueueNamespace: namespaceDeletionGracePeriod)
// and, if the namespace of that name is terminating then, deletes every
// collection in it (deletion/namespaced_resources_deleter.go,
// deleteAllContent) until a call finds the namespace's UID changed. A
// namespace deleteNamespaces purged and finalized is gone at once, and a
// lab's start makes it again; were it deleted again as that key comes
// due, the controller would still be deleting by name when the start
// makes the namespace anew, and would delete what the start just made.
// Seen in a driver-reboot proof: the controller's log says "namespace uid
// has changed across retries" as the start's DaemonSet goes, and the
// reset waited for that DaemonSet until its deadline. So a namespace is
// deleted again only once every key of its last deletion has come due
// and found it alive: namespaceReuse after deleteNamespaces saw it gone.
const namespaceReuse = 5*time.Second + time.Second // the controller's grace, and its own delay

// gone is when deleteNamespaces last saw each namespace of each sandbox
// (by its API server's URL) gone, in this process: a proof's lanes reset
// sandboxes of their own, each with its own namespace controller.
var gone = goneLog{at: map[goneKey]time.Time{}}

type goneLog struct {
	mu sync.Mutex
	at map[goneKey]time.Time
}

type goneKey struct{ server, namespace string }

func (g *goneLog) saw(server string, names []string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, ns := range names {
		g.at[goneKey{server, ns}] = now
	}
}

// wait is how long, from now, to wait before deleting names of server
// again.
func (g *goneLog) wait(server string, names []string, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	var d time.Duration
	for _, ns := range names {
		if at, ok := g.at[goneKey{server, ns}]; ok {
			d = max(d, at.Add(namespaceReuse).Sub(now))
		}
	}
	return d
}

// purgeWait bounds how long deleteNamespaces waits for a namespace's
// objects to go before it leaves the namespace to the controller.
const purgeWait = 30 * time.Second

// namespacedResources are the namespaced resources the server can list
// and delete by collection: what the namespace controller empties.
func namespacedResources(d discovery.DiscoveryInterface) ([]schema.GroupVersionResource, error) {
	lists, err := d.ServerPreferredNamespacedResources()
	if err != nil {
		return nil, err
	}
	lists = discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "deletecollection"}}, lists)
	set, err := discovery.GroupVersionResources(lists)
	if err != nil {
		return nil, err
	}
	gvrs := make([]schema.GroupVersionResource, 0, len(set))
	for gvr := range set {
		gvrs = append(gvrs, gvr)
	}
	return gvrs, nil
}

// purge deletes every object of gvrs in the terminating namespace ns and
// waits until none is left; it returns an error when it could not tell
// that none is. Only the resources that hold objects are deleted and
// watched: in a terminating namespace an empty list stays empty (the API
// server refuses new content), and most of the forty-odd resources a
// server lists are empty in a lab's namespace.
func purge(ctx context.Context, dyn dynamic.Interface, gvrs []schema.GroupVersionResource, ns string) error {
	now := metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}
	// Asked a few at a time: one after another, the forty-odd lists were
	// most of a reset's time.
	var (
		mu    sync.Mutex
		held  []schema.GroupVersionResource
		errs  []error
		wg    sync.WaitGroup
		slots = make(chan struct{}, 8)
	)
	for _, gvr := range gvrs {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			empty, err := emptyIn(ctx, dyn, gvr, ns)
			if err == nil && !empty {
				if err = dyn.Resource(gvr).Namespace(ns).DeleteCollection(ctx, now, metav1.ListOptions{}); apierrors.IsNotFound(err) {
					err = nil
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			} else if !empty {
				held = append(held, gvr)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return poll(ctx, func(ctx context.Context) (bool, error) {
		for _, gvr := range held {
			if empty, err := emptyIn(ctx, dyn, gvr, ns); err != nil || !empty {
				return false, nil
			}
		}
		return true, nil
	}, func() error { return context.DeadlineExceeded })
}

// emptyIn says whether ns holds no object of gvr (a resource the server
// stopped serving holds none).
func emptyIn(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string) (bool, error) {
	list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{Limit: 1})
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return len(list.Items) == 0, nil
}

// finalize removes the "kubernetes" finalizer of the terminating, empty
// namespace ns, as the namespace controller does once it emptied it. A
// namespace not terminating (a lab's own start re-created it) or gone is
// left alone; a refusal leaves the finalizer to the controller.
func finalize(ctx context.Context, cs kube.Interface, ns string) {
	live, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil || live.DeletionTimestamp == nil {
		return
	}
	live.Spec.Finalizers = slices.DeleteFunc(live.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	_, _ = cs.CoreV1().Namespaces().Finalize(ctx, live, metav1.UpdateOptions{})
}
