package class

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/labhub/labmate/internal/kubeclient"
	"github.com/labhub/labmate/internal/kubeconfig"
)

// Timeouts of every class request. A class cluster that is down or slow
// costs the learner nothing but a retry later.
const (
	dialTimeout    = 5 * time.Second
	requestTimeout = 10 * time.Second
)

// Learner is what a learner's class kubeconfig (as init writes them)
// says: where the class is and who the learner is in it.
type Learner struct {
	Config    *rest.Config
	Namespace string
	// ID is the learner's slot: the current context's user name, which
	// init sets to the slot (and the ServiceAccount's name).
	ID string
}

// ErrNotClassKubeconfig says a kubeconfig lacks what a class kubeconfig
// has (a current context with a namespace and a user).
var ErrNotClassKubeconfig = errors.New("not a class kubeconfig")

// LoadLearner reads a class kubeconfig written by init, with labmate's
// one kubeconfig loader. Only that file is read: never $KUBECONFIG or
// ~/.kube/config, which point at the lab's own cluster.
func LoadLearner(path string) (Learner, error) {
	l, err := kubeconfig.Load(kubeconfig.Options{Path: path, Only: true, DialTimeout: dialTimeout})
	if err != nil {
		return Learner{}, err
	}
	if l.Namespace == "" || !ValidLearner(l.User) {
		return Learner{}, fmt.Errorf("%s: %w", path, ErrNotClassKubeconfig)
	}
	tune(l.Config, requestTimeout)
	return Learner{Config: l.Config, Namespace: l.Namespace, ID: l.User}, nil
}

// LoadAdmin loads the instructor's kubeconfig the kubectl way (explicit
// path, else $KUBECONFIG, else ~/.kube/config), with labmate's one
// loader, and returns the config and the namespace: ns when set, else the
// context's namespace, else "labmate-class". timeout bounds each request;
// 0 leaves them unbounded (watches).
func LoadAdmin(path, context, ns string, timeout time.Duration) (*rest.Config, string, error) {
	l, err := kubeconfig.Load(kubeconfig.Options{Path: path, Context: context, DialTimeout: dialTimeout})
	if err != nil {
		return nil, "", err
	}
	if ns == "" {
		ns = l.Namespace
	}
	if ns == "" {
		ns = DefaultNamespace
	}
	cfg := l.Config
	tune(cfg, timeout)
	// init creates a few objects per learner; the default 5 QPS would
	// make a class of 200 wait minutes on the client's own limiter.
	cfg.QPS, cfg.Burst = 100, 200
	return cfg, ns, nil
}

// DefaultNamespace is the class namespace when none is named.
const DefaultNamespace = "labmate-class"

func tune(cfg *rest.Config, timeout time.Duration) {
	cfg.Timeout = timeout
	cfg.WarningHandler = rest.NoWarnings{}
	cfg.UserAgent = "labmate-class"
}

// Clientset is kubeclient.NewForConfig.
func Clientset(cfg *rest.Config) (kubeclient.Interface, error) {
	return kubeclient.NewForConfig(cfg)
}

// ProbeResult is what Probe found about a learner's class connection.
type ProbeResult struct {
	Learner Learner
	// Refused is true when the class cluster answered no (401, 403, the
	// record missing); Err holds the failure either way.
	Refused bool
	Err     error
}

// Probe loads a class kubeconfig and reads the learner's own record of
// lab, within timeout: what `labmate doctor --class` reports.
func Probe(ctx context.Context, path, lab string, timeout time.Duration) ProbeResult {
	l, err := LoadLearner(path)
	if err != nil {
		return ProbeResult{Err: err}
	}
	cs, err := Clientset(l.Config)
	if err != nil {
		return ProbeResult{Learner: l, Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = cs.CoreV1().ConfigMaps(l.Namespace).Get(ctx, ObjectName(l.ID, lab), metav1.GetOptions{})
	return ProbeResult{Learner: l, Refused: err != nil && refused(err), Err: err}
}

// configMapInformer is an informer of the ConfigMaps of ns, tweak (if
// not nil) narrowing its list and watch: what informers' factory builds
// for Core().V1().ConfigMaps(), without the factory, which would compile
// an informer for every API group into labmate (internal/kubeclient says
// why).
func configMapInformer(cs kubeclient.Interface, ns string, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	cms := cs.CoreV1().ConfigMaps(ns)
	narrow := func(o metav1.ListOptions) metav1.ListOptions {
		if tweak != nil {
			tweak(&o)
		}
		return o
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cms.List(ctx, narrow(o))
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cms.Watch(ctx, narrow(o))
		},
	}
	return cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}
