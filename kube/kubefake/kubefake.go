// Package kubefake is kube's fake for tests: Clientset, kube.Interface
// over client-go's object tracker (what k8s.io/client-go/kubernetes/fake
// is for the whole Clientset, without compiling every API group's fake),
// and Conn, a kube.Conn of fake clients.
package kubefake

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
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
	"k8s.io/client-go/rest"
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

// Conn is a kube.Conn of fake clients, the real connection's
// counterpart in tests: each getter returns its part, and a part that is
// nil is an error when asked for. Within is the connection itself (a
// fake has no timeout to set); it writes no kubeconfig.
type Conn struct {
	host    string
	origin  kube.Origin
	typed   kube.Interface
	dyn     dynamic.Interface
	disc    discovery.CachedDiscoveryInterface
	mapper  meta.ResettableRESTMapper
	version func(context.Context) (string, error)
}

var _ kube.Conn = (*Conn)(nil)

// NewConn is a connection with cs as its typed client and dyn as its
// dynamic client (nil: none), a REST mapper that knows every kind of
// client-go's scheme, and an API server that answers v1.34.12.
func NewConn(cs *Clientset, dyn dynamic.Interface) *Conn {
	c := &Conn{host: "https://fake.invalid", dyn: dyn,
		version: func(context.Context) (string, error) { return "v1.34.12", nil }}
	if cs != nil {
		c.typed = cs
	}
	return c.WithMapper(testrestmapper.TestOnlyStaticRESTMapper(scheme.Scheme))
}

// WithMapper makes m the connection's REST mapper.
func (c *Conn) WithMapper(m meta.RESTMapper) *Conn {
	switch m := m.(type) {
	case nil:
		c.mapper = nil
	case meta.ResettableRESTMapper:
		c.mapper = m
	default:
		c.mapper = fixedMapper{m}
	}
	return c
}

// WithVersion makes probe the answer of the reachability probe.
func (c *Conn) WithVersion(probe func(context.Context) (string, error)) *Conn {
	c.version = probe
	return c
}

// WithOrigin is the kubeconfig context the connection says it came from.
func (c *Conn) WithOrigin(o kube.Origin) *Conn {
	c.origin = o
	return c
}

// fixedMapper is a mapper that has nothing to forget (a table's).
type fixedMapper struct{ meta.RESTMapper }

func (fixedMapper) Reset() {}

// errNoPart is asking the connection for a client it was not given.
func errNoPart(what string) error {
	return fmt.Errorf("kubefake: this connection has no %s client", what)
}

func (c *Conn) Host() string                   { return c.host }
func (c *Conn) Origin() kube.Origin            { return c.origin }
func (c *Conn) Config() *rest.Config           { return &rest.Config{Host: c.host} }
func (c *Conn) Within(time.Duration) kube.Conn { return c }

func (c *Conn) Typed() (kube.Interface, error) {
	if c.typed == nil {
		return nil, errNoPart("typed")
	}
	return c.typed, nil
}

func (c *Conn) Dynamic() (dynamic.Interface, error) {
	if c.dyn == nil {
		return nil, errNoPart("dynamic")
	}
	return c.dyn, nil
}

func (c *Conn) Discovery() (discovery.CachedDiscoveryInterface, error) {
	if c.disc == nil {
		return nil, errNoPart("discovery")
	}
	return c.disc, nil
}

func (c *Conn) Mapper() (meta.ResettableRESTMapper, error) {
	if c.mapper == nil {
		return nil, errNoPart("REST mapper")
	}
	return c.mapper, nil
}

func (c *Conn) Get(context.Context, string) ([]byte, error) { return nil, errNoPart("REST") }

func (c *Conn) Version(ctx context.Context) (string, error) {
	if c.version == nil {
		return "", errNoPart("version")
	}
	return c.version(ctx)
}

func (c *Conn) WriteKubeconfig(string) error {
	return fmt.Errorf("kubefake: a fake connection has no kubeconfig to write")
}
