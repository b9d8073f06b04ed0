package kubefake

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

// Server-side apply keeps what another manager applied and the objects
// given to New; a watch sees the change.
func TestApplyMergesAndWatchSees(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := New(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "seed", Namespace: "class"}})
	cms := cs.CoreV1().ConfigMaps("class")
	if _, err := cms.Get(ctx, "seed", metav1.GetOptions{}); err != nil {
		t.Fatalf("object given to New: %v", err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	apply := func(manager, key string) {
		t.Helper()
		ac := corev1ac.ConfigMap("rec", "class").WithData(map[string]string{key: manager})
		if _, err := cms.Apply(ctx, ac, metav1.ApplyOptions{FieldManager: manager, Force: true}); err != nil {
			t.Fatalf("apply by %s: %v", manager, err)
		}
	}
	apply("a", "x")
	apply("b", "y")
	got, err := cms.Get(ctx, "rec", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Data["x"] != "a" || got.Data["y"] != "b" {
		t.Errorf("data %v, want both managers' keys", got.Data)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Added {
			t.Errorf("first event %s, want %s", ev.Type, watch.Added)
		}
	case <-ctx.Done():
		t.Fatal("the watch saw no event")
	}
	if len(cs.Actions()) == 0 {
		t.Error("no actions recorded")
	}
}
