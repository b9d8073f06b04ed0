package sandbox_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// Rewind takes back what was added since an inventory (a namespace with
// a pod in it; a pod, its events and a ConfigMap in a namespace that was
// there; a cluster-scoped PriorityClass) and says the sandbox holds the
// inventory's objects again, which a second inventory confirms. Once an
// object of the inventory changed, it says no and deletes nothing: only
// a reset can make that object as it was.
func TestRewindE2E(t *testing.T) {
	sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	sandboxtest.LockLab(t)
	conn := sandboxtest.Conn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const kept, added, class = "labmate-rewind-kept", "labmate-rewind-added", "labmate-rewind"
	t.Cleanup(func() {
		for _, ns := range []string{kept, added} {
			_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		}
		_ = cs.SchedulingV1().PriorityClasses().Delete(context.Background(), class, metav1.DeleteOptions{})
		// Gone before the next run (-count) makes them again.
		_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			for _, ns := range []string{kept, added} {
				if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return false, nil
				}
			}
			return true, nil
		})
	})
	namespace := func(name string) {
		t.Helper()
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// What the controllers add to a new namespace, before anything
		// is counted.
		err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			_, sa := cs.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
			_, ca := cs.CoreV1().ConfigMaps(name).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return sa == nil && ca == nil, nil
		})
		if err != nil {
			t.Fatalf("namespace %s: no default ServiceAccount and root CA: %v", name, err)
		}
	}
	configMap := func(ns, name string) {
		t.Helper()
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(ns string) {
		t.Helper()
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// Scheduled (an event in ns) and running on a fake node.
		err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			got, err := cs.CoreV1().Pods(ns).Get(ctx, "p", metav1.GetOptions{})
			return err == nil && got.Status.Phase == corev1.PodRunning, nil
		})
		if err != nil {
			t.Fatalf("pod %s/p not running: %v", ns, err)
		}
	}
	inventory := func() sandbox.Inventory {
		t.Helper()
		inv, err := sandbox.TakeInventory(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		return inv
	}

	// A namespace an earlier test deleted may still be going: it would
	// change the baseline by itself.
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, ns := range nss.Items {
			if ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("a namespace still going before the baseline: %v", err)
	}
	namespace(kept)
	configMap(kept, "base")
	// A sandbox just started is still settling (its controllers' first
	// events): the baseline is two inventories alike in a row. One that
	// keeps changing by itself never gets there.
	var base sandbox.Inventory
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(context.Context) (bool, error) {
		prev := base
		base = inventory()
		return prev.Len() > 0 && base.Equal(prev), nil
	})
	if err != nil {
		t.Fatal("two inventories of an idle sandbox never agree: something other than a lease changes by itself")
	}

	namespace(added)
	pod(added)
	pod(kept)
	configMap(kept, "extra")
	if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Value: 7}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if inventory().Equal(base) {
		t.Fatal("the inventory did not change with what was added")
	}
	ok, err := sandbox.Rewind(ctx, conn, base)
	if err != nil || !ok {
		t.Fatalf("Rewind after additions only = %v, %v; want true", ok, err)
	}
	if after := inventory(); !after.Equal(base) {
		t.Errorf("Rewind said true, but the sandbox's inventory is not the baseline's: %s", after.Diff(base))
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, added, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s after Rewind: %v, want it gone", added, err)
	}
	for _, name := range []string{"extra"} {
		if _, err := cs.CoreV1().ConfigMaps(kept).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("ConfigMap %s/%s after Rewind: %v, want it gone", kept, name, err)
		}
	}

	// An added object made again as soon as it is gone, as client-go's
	// event recorder makes an event again when the patch of a repeat finds
	// it deleted: Rewind deletes the new one too and does not wait for it
	// to go (it waited until its deadline, two minutes). A finalizer holds
	// the first one until the watch below has seen it deleted, so the new
	// one is there before Rewind can find the name free.
	held, err := cs.CoreV1().ConfigMaps(kept).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "phoenix", Finalizers: []string{"labmate.test/hold"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cs.CoreV1().ConfigMaps(kept).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=phoenix", ResourceVersion: held.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	remade := make(chan error, 1)
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if !ok || cm.DeletionTimestamp == nil {
				continue
			}
			cm.Finalizers = nil
			if _, err := cs.CoreV1().ConfigMaps(kept).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				remade <- err
				return
			}
			_, err := cs.CoreV1().ConfigMaps(kept).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "phoenix"}}, metav1.CreateOptions{})
			remade <- err
			return
		}
		remade <- ctx.Err()
	}()
	ok, err = sandbox.Rewind(ctx, conn, base)
	if err != nil || !ok {
		t.Fatalf("Rewind of an object made again once deleted = %v, %v; want true", ok, err)
	}
	if err := <-remade; err != nil {
		t.Fatalf("making phoenix again: %v", err)
	}
	if after := inventory(); !after.Equal(base) {
		t.Errorf("Rewind said true, but the sandbox's inventory is not the baseline's: %s", after.Diff(base))
	}

	// A baseline object changed: no rewind, and nothing deleted.
	cm, err := cs.CoreV1().ConfigMaps(kept).Get(ctx, "base", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["a"] = "2"
	if _, err := cs.CoreV1().ConfigMaps(kept).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	configMap(kept, "extra")
	if ok, err := sandbox.Rewind(ctx, conn, base); err != nil || ok {
		t.Errorf("Rewind with a baseline object changed = %v, %v; want false", ok, err)
	}
	if _, err := cs.CoreV1().ConfigMaps(kept).Get(ctx, "extra", metav1.GetOptions{}); err != nil {
		t.Errorf("ConfigMap %s/extra after a refused Rewind: %v, want it left", kept, err)
	}

	// A baseline object deleted and made again alike (only its UID and
	// version tell): no rewind either, and nothing deleted.
	again := inventory()
	if err := cs.CoreV1().ConfigMaps(kept).Delete(ctx, "base", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	configMap(kept, "base")
	configMap(kept, "extra2")
	if ok, err := sandbox.Rewind(ctx, conn, again); err != nil || ok {
		t.Errorf("Rewind with a baseline object made again = %v, %v; want false", ok, err)
	}
	if _, err := cs.CoreV1().ConfigMaps(kept).Get(ctx, "extra2", metav1.GetOptions{}); err != nil {
		t.Errorf("ConfigMap %s/extra2 after a refused Rewind: %v, want it left", kept, err)
	}
}
