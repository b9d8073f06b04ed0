// Package kubefake is kube.Interface over client-go's object
// tracker, for tests: what k8s.io/client-go/kubernetes/fake is for the
// whole Clientset, without compiling every API group's fake.
package kubefake

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	appsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	fakeappsv1 "k8s.io/client-go/kubernetes/typed/apps/v1/fake"
	authorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1"
	fakeauthorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1/fake"
	batchv1 "k8s.io/client-go/kubernetes/typed/batch/v1"
	fakebatchv1 "k8s.io/client-go/kubernetes/typed/batch/v1/fake"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	fakecorev1 "k8s.io/client-go/kubernetes/typed/core/v1/fake"
	nodev1 "k8s.io/client-go/kubernetes/typed/node/v1"
	fakenodev1 "k8s.io/client-go/kubernetes/typed/node/v1/fake"
	rbacv1 "k8s.io/client-go/kubernetes/typed/rbac/v1"
	fakerbacv1 "k8s.io/client-go/kubernetes/typed/rbac/v1/fake"
	schedulingv1 "k8s.io/client-go/kubernetes/typed/scheduling/v1"
	fakeschedulingv1 "k8s.io/client-go/kubernetes/typed/scheduling/v1/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/labhub/labmate/kube"
)

// Clientset is a fake kube.Interface: reactors (PrependReactor and
// the rest of k8stesting.Fake) in front of an object tracker that keeps
// server-side apply's managed fields, like fake.NewClientset's.
type Clientset struct {
	k8stesting.Fake
	tracker k8stesting.ObjectTracker
}

var _ kube.Interface = (*Clientset)(nil)

// New is fake.NewClientset for kube.Interface. Server-side apply
// merges by the structure of the objects (a deduced schema), where the
// real Clientset's fake knows every type's schema: enough for the
// ConfigMaps labmate applies, whose data is a plain map.
func New(objects ...runtime.Object) *Clientset {
	o := k8stesting.NewFieldManagedObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder(),
		managedfields.NewDeducedTypeConverter())
	for _, obj := range objects {
		if err := o.Add(obj); err != nil {
			panic(err)
		}
	}
	cs := &Clientset{tracker: o}
	cs.AddReactor("*", "*", k8stesting.ObjectReaction(o))
	cs.AddWatchReactor("*", func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := o.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		return true, w, nil
	})
	return cs
}

// Tracker is the object tracker behind the fake.
func (c *Clientset) Tracker() k8stesting.ObjectTracker { return c.tracker }

func (c *Clientset) Discovery() discovery.DiscoveryInterface {
	return &fakediscovery.FakeDiscovery{Fake: &c.Fake}
}
func (c *Clientset) CoreV1() corev1.CoreV1Interface { return &fakecorev1.FakeCoreV1{Fake: &c.Fake} }
func (c *Clientset) AppsV1() appsv1.AppsV1Interface { return &fakeappsv1.FakeAppsV1{Fake: &c.Fake} }
func (c *Clientset) BatchV1() batchv1.BatchV1Interface {
	return &fakebatchv1.FakeBatchV1{Fake: &c.Fake}
}
func (c *Clientset) RbacV1() rbacv1.RbacV1Interface { return &fakerbacv1.FakeRbacV1{Fake: &c.Fake} }
func (c *Clientset) AuthorizationV1() authorizationv1.AuthorizationV1Interface {
	return &fakeauthorizationv1.FakeAuthorizationV1{Fake: &c.Fake}
}
func (c *Clientset) NodeV1() nodev1.NodeV1Interface { return &fakenodev1.FakeNodeV1{Fake: &c.Fake} }
func (c *Clientset) SchedulingV1() schedulingv1.SchedulingV1Interface {
	return &fakeschedulingv1.FakeSchedulingV1{Fake: &c.Fake}
}

// Conn is a connection for tests: cs as its typed client, dyn (nil: none)
// as its dynamic client, and a REST mapper that knows every kind of
// client-go's scheme.
func Conn(cs *Clientset, dyn dynamic.Interface) *kube.Conn {
	return kube.Assemble(kube.Parts{Host: "https://fake.invalid", Typed: cs, Dynamic: dyn,
		Mapper:  testrestmapper.TestOnlyStaticRESTMapper(scheme.Scheme),
		Version: func(context.Context) (string, error) { return "v1.34.12", nil }})
}
