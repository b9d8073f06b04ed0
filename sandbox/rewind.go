package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"

	"github.com/labhub/labmate/kube"
)

// A lab's proof tries each near-miss from the same baseline: the lab's
// start, then the solutions of the steps before the near-miss's. Reset
// makes the start again and the proof replays the solutions, which is
// most of a trial's time (each kubectl a process of its own). A near-miss
// that left the cluster as it found it, or only added to it, needs
// neither: Rewind deletes what it added and proves, object by object,
// that the cluster is then exactly the baseline's again. Anything else
// (an object of the baseline changed or gone) is Reset's, and the
// solutions are replayed.

// Inventory is every object a sandbox holds, by resource, namespace and
// name, with the UID and resource version it had when taken: a resource
// version changes with every write of an object, and a UID with every
// object made again, so two equal inventories hold the very same objects
// unchanged. Leases are left out: the control plane renews its own all
// the time, and they are nobody's lesson.
type Inventory struct {
	objects map[ObjectRef]objectVersion
}

// ObjectRef names an object of a sandbox.
type ObjectRef struct {
	Resource  schema.GroupVersionResource
	Namespace string
	Name      string
}

type objectVersion struct {
	uid types.UID
	rv  string
}

// Len is how many objects the inventory holds.
func (inv Inventory) Len() int { return len(inv.objects) }

// Equal says whether both inventories hold the same objects at the same
// versions.
func (inv Inventory) Equal(other Inventory) bool {
	return maps.Equal(inv.objects, other.objects)
}

// unrecorded are resources left out of an inventory: the control plane's
// leader-election and identity leases, renewed every few seconds.
var unrecorded = []schema.GroupResource{{Group: "coordination.k8s.io", Resource: "leases"}}

// TakeInventory lists every object of every resource the sandbox serves
// (metadata only, a few lists at a time). Call it only on a cluster
// Identify accepted.
func TakeInventory(ctx context.Context, conn kube.Conn) (Inventory, error) {
	d, err := conn.Discovery()
	if err != nil {
		return Inventory{}, err
	}
	lists, err := d.ServerPreferredResources()
	if err != nil {
		return Inventory{}, err
	}
	lists = discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "delete"}}, lists)
	set, err := discovery.GroupVersionResources(lists)
	if err != nil {
		return Inventory{}, err
	}
	var (
		mu    sync.Mutex
		inv   = Inventory{objects: map[ObjectRef]objectVersion{}}
		errs  []error
		wg    sync.WaitGroup
		slots = make(chan struct{}, 8)
	)
	for gvr := range set {
		if slices.Contains(unrecorded, gvr.GroupResource()) || strings.Contains(gvr.Resource, "/") {
			continue
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			objs, err := listMetadata(ctx, d, gvr)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for _, o := range objs {
				inv.objects[ObjectRef{Resource: gvr, Namespace: o.Namespace, Name: o.Name}] = objectVersion{uid: o.UID, rv: o.ResourceVersion}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Inventory{}, err
	}
	return inv, nil
}

// listMetadata lists gvr's objects in every namespace, their metadata
// only (the API server's PartialObjectMetadataList): a custom resource's
// definition or a ConfigMap's data need not cross the wire to be told
// apart.
func listMetadata(ctx context.Context, d discovery.DiscoveryInterface, gvr schema.GroupVersionResource) ([]metav1.ObjectMeta, error) {
	path := "/apis/" + gvr.Group + "/" + gvr.Version + "/" + gvr.Resource
	if gvr.Group == "" {
		path = "/api/" + gvr.Version + "/" + gvr.Resource
	}
	raw, err := d.RESTClient().Get().AbsPath(path).
		SetHeader("Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1").DoRaw(ctx)
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return nil, nil // no longer served: it holds nothing
	}
	if err != nil {
		return nil, err
	}
	var list metav1.PartialObjectMetadataList
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	out := make([]metav1.ObjectMeta, len(list.Items))
	for i, it := range list.Items {
		out[i] = it.ObjectMeta
	}
	return out, nil
}

// Rewind brings the sandbox back to inv when that means deleting only
// what was added since (objects, namespaces with all they hold), and
// reports whether the sandbox then holds exactly inv's objects, each at
// inv's version. An object of inv changed or gone makes it false at once,
// having deleted nothing: only Reset and the solutions can make that
// again. Call it only on a cluster Identify accepted.
func Rewind(ctx context.Context, conn kube.Conn, inv Inventory) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, ResetTimeout)
	defer cancel()
	now, err := TakeInventory(ctx, conn)
	if err != nil {
		return false, err
	}
	added := now.addedTo(inv)
	if added == nil {
		slog.Debug("sandbox rewind", "changed", now.diff(inv))
		return false, nil
	}
	// What the added objects' controllers and event recorders still had
	// in flight when they went (an event about a pod just deleted) is
	// added too: a few passes take it all. A pass that finds nothing
	// added looks once more a moment later, since an event recorder's
	// batch can land after a look (seen under load in CI).
	settled := false
	for pass := 0; ; pass++ {
		if len(added) == 0 {
			if settled {
				return true, nil
			}
			settled = true
			select {
			case <-ctx.Done():
				return false, ctx.Err()
			case <-time.After(rewindSettle):
			}
		} else {
			if pass >= rewindPasses {
				slog.Debug("sandbox rewind", "left", now.diff(inv))
				return false, nil
			}
			settled = false
			if err := removeAdded(ctx, conn, now, added); err != nil {
				return false, err
			}
		}
		if now, err = TakeInventory(ctx, conn); err != nil {
			return false, err
		}
		if added = now.addedTo(inv); added == nil {
			slog.Debug("sandbox rewind", "after", now.diff(inv))
			return false, nil
		}
	}
}

// rewindSettle is how long Rewind waits before its second look at a
// sandbox that holds inv's objects again.
const rewindSettle = 250 * time.Millisecond

// rewindPasses bounds how many times Rewind deletes what was added.
const rewindPasses = 3

// addedTo lists the objects inv lacks when inv's are all there
// unchanged (empty when the two are equal); nil when one of inv's
// changed or is gone.
func (inv Inventory) addedTo(base Inventory) []ObjectRef {
	added := []ObjectRef{}
	for ref, v := range inv.objects {
		old, ok := base.objects[ref]
		switch {
		case !ok:
			added = append(added, ref)
		case old != v:
			return nil
		}
	}
	if len(inv.objects)-len(added) != len(base.objects) {
		return nil
	}
	return added
}

// String names the object as kubectl would: resource.group/namespace/name.
func (r ObjectRef) String() string {
	res := r.Resource.Resource
	if r.Resource.Group != "" {
		res += "." + r.Resource.Group
	}
	if r.Namespace != "" {
		return res + "/" + r.Namespace + "/" + r.Name
	}
	return res + "/" + r.Name
}

// diff names the first few objects inv and other do not hold alike.
func (inv Inventory) diff(other Inventory) string {
	var out []string
	for ref, v := range inv.objects {
		if w, ok := other.objects[ref]; !ok || w != v {
			out = append(out, ref.String())
		}
	}
	for ref := range other.objects {
		if _, ok := inv.objects[ref]; !ok {
			out = append(out, "-"+ref.String())
		}
	}
	slices.Sort(out)
	return strings.Join(out[:min(len(out), 5)], ", ")
}

// removeAdded deletes the added objects (as inv, the inventory that
// found them, holds them): a namespace whole (with deleteNamespaces,
// which waits until it is gone), what makes pods before the pods (so
// nothing makes them again meanwhile), pods at once; then waits until
// every one it deleted is gone. An object made again under the same name
// meanwhile is another object (another UID), not waited for: client-go's
// event recorder creates an event anew when the patch of a repeat finds
// it deleted (k8s.io/client-go v0.34, tools/record/event.go,
// recordEvent), for as long as the controller that reports keeps
// failing, and the next inventory finds it added.
func removeAdded(ctx context.Context, conn kube.Conn, inv Inventory, added []ObjectRef) error {
	cs, err := conn.Typed()
	if err != nil {
		return err
	}
	dyn, err := conn.Dynamic()
	if err != nil {
		return err
	}
	isNamespace := func(ref ObjectRef) bool { return ref.Resource.Group == "" && ref.Resource.Resource == "namespaces" }
	var namespaces []string
	for _, ref := range added {
		if isNamespace(ref) {
			namespaces = append(namespaces, ref.Name)
		}
	}
	var objects []ObjectRef // the rest, but what goes with its namespace
	for _, ref := range added {
		if !isNamespace(ref) && !slices.Contains(namespaces, ref.Namespace) {
			objects = append(objects, ref)
		}
	}
	slices.SortStableFunc(objects, func(a, b ObjectRef) int { return deleteOrder(a) - deleteOrder(b) })
	now := metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0)), PropagationPolicy: ptr(metav1.DeletePropagationBackground)}
	for _, ref := range objects {
		err := dyn.Resource(ref.Resource).Namespace(ref.Namespace).Delete(ctx, ref.Name, now)
		if err != nil && !apierrors.IsNotFound(err) {
			return wrapMsg(err, "sandbox.err.wipe", "resource", ref.Resource.Resource+"."+ref.Resource.Group)
		}
	}
	if err := deleteNamespaces(ctx, conn.Host(), cs, dyn, namespaces); err != nil {
		return err
	}
	return wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, ref := range objects {
			o, err := dyn.Resource(ref.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			if err == nil && o.GetUID() == inv.objects[ref].uid || err != nil && !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
}

// deleteOrder puts what makes pods first and events last.
func deleteOrder(ref ObjectRef) int {
	switch ref.Resource.Resource {
	case "deployments", "daemonsets", "statefulsets", "cronjobs", "replicationcontrollers":
		return 0
	case "replicasets", "jobs":
		return 1
	case "pods":
		return 2
	case "events":
		return 4
	}
	return 3
}
