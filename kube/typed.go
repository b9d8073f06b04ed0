// The typed Kubernetes client labmate uses: the API groups it calls, not
// client-go's whole Clientset.
//
// kubernetes.NewForConfig brings a typed client, an informer, a lister and
// an apply configuration for every API group the server might serve: some
// 270 packages labmate never calls, about a third of what compiling labmate
// costs (and again for every -race build of a package that reaches it).
// Interface has the method set of kubernetes.Interface for the groups
// labmate uses, so a *kubernetes.Clientset is one too; NewForConfig builds
// them the way kubernetes.NewForConfig does: one HTTP client and one rate
// limiter shared by every group.

package kube

import (
	"errors"
	"net/http"

	"k8s.io/client-go/discovery"
	appsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	authorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1"
	batchv1 "k8s.io/client-go/kubernetes/typed/batch/v1"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	nodev1 "k8s.io/client-go/kubernetes/typed/node/v1"
	rbacv1 "k8s.io/client-go/kubernetes/typed/rbac/v1"
	schedulingv1 "k8s.io/client-go/kubernetes/typed/scheduling/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// Interface is the part of kubernetes.Interface labmate calls.
type Interface interface {
	Discovery() discovery.DiscoveryInterface
	CoreV1() corev1.CoreV1Interface
	AppsV1() appsv1.AppsV1Interface
	BatchV1() batchv1.BatchV1Interface
	RbacV1() rbacv1.RbacV1Interface
	AuthorizationV1() authorizationv1.AuthorizationV1Interface
	NodeV1() nodev1.NodeV1Interface
	SchedulingV1() schedulingv1.SchedulingV1Interface
}

// Clientset is Interface over a rest.Config.
type Clientset struct {
	discovery     *discovery.DiscoveryClient
	core          *corev1.CoreV1Client
	apps          *appsv1.AppsV1Client
	batch         *batchv1.BatchV1Client
	rbac          *rbacv1.RbacV1Client
	authorization *authorizationv1.AuthorizationV1Client
	node          *nodev1.NodeV1Client
	scheduling    *schedulingv1.SchedulingV1Client
}

var _ Interface = (*Clientset)(nil)

func (c *Clientset) Discovery() discovery.DiscoveryInterface { return c.discovery }
func (c *Clientset) CoreV1() corev1.CoreV1Interface          { return c.core }
func (c *Clientset) AppsV1() appsv1.AppsV1Interface          { return c.apps }
func (c *Clientset) BatchV1() batchv1.BatchV1Interface       { return c.batch }
func (c *Clientset) RbacV1() rbacv1.RbacV1Interface          { return c.rbac }
func (c *Clientset) AuthorizationV1() authorizationv1.AuthorizationV1Interface {
	return c.authorization
}
func (c *Clientset) NodeV1() nodev1.NodeV1Interface                   { return c.node }
func (c *Clientset) SchedulingV1() schedulingv1.SchedulingV1Interface { return c.scheduling }

// NewForConfig is kubernetes.NewForConfig for the groups of Interface.
func NewForConfig(c *rest.Config) (*Clientset, error) {
	cfg := *c
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	httpClient, err := rest.HTTPClientFor(&cfg)
	if err != nil {
		return nil, err
	}
	return newForConfigAndClient(&cfg, httpClient)
}

// errBurst is client-go's own refusal of a QPS without a burst (a
// programming error: labmate sets both or neither).
var errBurst = errors.New("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")

// newForConfigAndClient is kubernetes.NewForConfigAndClient for the
// groups of Interface: one rate limiter for them all when the config
// asks for one by QPS.
func newForConfigAndClient(c *rest.Config, httpClient *http.Client) (*Clientset, error) {
	cfg := *c
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, errBurst
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	var cs Clientset
	var err error
	if cs.core, err = corev1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if cs.apps, err = appsv1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if cs.batch, err = batchv1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if cs.rbac, err = rbacv1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if cs.authorization, err = authorizationv1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if cs.node, err = nodev1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if cs.scheduling, err = schedulingv1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if cs.discovery, err = discovery.NewDiscoveryClientForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	return &cs, nil
}
