// Package kube is labmate's one way to a Kubernetes cluster: the
// connection (Conn: one rest.Config, one HTTP transport and one rate
// limiter, the typed, dynamic and discovery clients and the REST mapper
// made from them on demand), the one kubeconfig loader (Load and Open:
// kubectl's rules, then the sandbox's kubeconfig; never interactive), the
// lab cluster as a command line chose it (Target: is there one, which,
// and how its absence is worded), the typed client of the API groups
// labmate calls (Interface), the one informer of ConfigMaps, and what a
// learner is told in Korean when any of it fails (Explain, CauseOf).
package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/flowcontrol"
)

// Conn is one connection to a cluster, as k9s's APIClient and
// controller-runtime's cluster.Cluster are. Every part of labmate that
// talks to a cluster (the cluster source, the sandbox, doctor, the
// class, lab verify) takes a Conn; none loads a kubeconfig or builds a
// client of its own. Open (and ForConfig) make the real one;
// kube/kubefake makes one of fake clients for tests.
//
// Requests through a Conn have no client timeout (watches must not have
// one); Within gives a copy whose every request ends in time, for probes
// and one-off calls.
type Conn interface {
	// Host is the API server's URL.
	Host() string
	// Origin is the kubeconfig context the connection was made from.
	Origin() Origin
	// Config is a copy of the connection's client config, for what must
	// build on it (a learner's kubeconfig written by class init).
	Config() *rest.Config
	// Typed is the typed client of the groups labmate calls.
	Typed() (Interface, error)
	// Dynamic is the dynamic client: objects of any kind, unstructured.
	Dynamic() (dynamic.Interface, error)
	// Discovery is the discovery client, its answers cached for the
	// connection's life (Mapper's Reset forgets them).
	Discovery() (discovery.CachedDiscoveryInterface, error)
	// Mapper resolves kinds and resources through discovery, lazily.
	// After creating a CustomResourceDefinition, Reset it to learn the
	// new kind.
	Mapper() (meta.ResettableRESTMapper, error)
	// Within is a copy whose every request ends within d: probes and
	// one-off requests, never watches.
	Within(d time.Duration) Conn
	// Get is a GET of an absolute path of the API server (/version,
	// /readyz), its body.
	Get(ctx context.Context, path string) ([]byte, error)
	// Version asks the API server for its version: the reachability
	// probe (on a Within copy, so that it ends in time).
	Version(ctx context.Context) (string, error)
	// WriteKubeconfig writes the connection's context alone and
	// self-contained to path, for a child process such as kubectl;
	// labmate itself never reads it back.
	WriteKubeconfig(path string) error
}

// Origin is where a connection's kubeconfig led: the context in use and
// its namespace and user ("" when none), and the files read. All empty
// for a connection made from a config alone.
type Origin struct {
	Context, Namespace, User string
	Paths                    []string
}

// conn is the real connection: one rest.Config whose one rate limiter
// every client made from it shares, and one HTTP transport (one set of
// TCP connections) under every client of the connection and of its
// Within copies, which differ only in their requests' timeout.
type conn struct {
	origin Origin
	cfg    *rest.Config
	http   *http.Client
	// opts loaded the kubeconfig (WriteKubeconfig writes its context);
	// nil for a connection made from a config alone.
	opts *Options

	mu     sync.Mutex
	typed  Interface
	dyn    dynamic.Interface
	disc   discovery.CachedDiscoveryInterface
	mapper meta.ResettableRESTMapper
	within map[time.Duration]*conn
}

// Open loads the kubeconfig o names (Load) and connects to its cluster.
// Failures to load are *LoadError.
func Open(o Options) (Conn, error) {
	l, err := Load(o)
	if err != nil {
		return nil, err
	}
	c, err := forConfig(l.Config)
	if err != nil {
		return nil, &LoadError{Kind: Invalid, Paths: l.Paths, Context: l.Context, Err: err}
	}
	c.origin = Origin{Context: l.Context, Namespace: l.Namespace, User: l.User, Paths: l.Paths}
	c.opts = &o
	return c, nil
}

// ForConfig connects with cfg as it is (a copy of it).
func ForConfig(cfg *rest.Config) (Conn, error) { return forConfig(cfg) }

// Unthrottled is c (the same server, user and origin) without the
// client's own rate limit, for labmate's bulk work on a sandbox it made
// and Identify accepted: a loopback API server whose own priority and
// fairness is the only bound wanted. A mutation proof lists every
// resource of the sandbox five times around a trial (sandbox.Rewind,
// the kept baseline): at 50 requests a second after a burst of 100, the
// limiter, not the server, held those lists. A connection of another
// kind (a test's fake) is returned as it is.
func Unthrottled(c Conn) (Conn, error) {
	cc, ok := c.(*conn)
	if !ok {
		return c, nil
	}
	cfg := rest.CopyConfig(cc.cfg)
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	out, err := forConfig(cfg)
	if err != nil {
		return nil, err
	}
	out.origin, out.opts = cc.origin, cc.opts
	return out, nil
}

func forConfig(cfg *rest.Config) (*conn, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, errBurst
		}
		// One limiter for the typed, dynamic and discovery clients and
		// every Within copy: each would otherwise build its own from QPS.
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return &conn{cfg: cfg, http: hc}, nil
}

func (c *conn) Host() string         { return c.cfg.Host }
func (c *conn) Origin() Origin       { return c.origin }
func (c *conn) Config() *rest.Config { return rest.CopyConfig(c.cfg) }

func (c *conn) Typed() (Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.typed == nil {
		cs, err := newForConfigAndClient(c.cfg, c.http)
		if err != nil {
			return nil, err
		}
		c.typed = cs
	}
	return c.typed, nil
}

func (c *conn) Dynamic() (dynamic.Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dyn == nil {
		d, err := dynamic.NewForConfigAndClient(c.cfg, c.http)
		if err != nil {
			return nil, err
		}
		c.dyn = d
	}
	return c.dyn, nil
}

func (c *conn) Discovery() (discovery.CachedDiscoveryInterface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.discovery()
}

func (c *conn) discovery() (discovery.CachedDiscoveryInterface, error) {
	if c.disc == nil {
		d, err := discovery.NewDiscoveryClientForConfigAndClient(c.cfg, c.http)
		if err != nil {
			return nil, err
		}
		c.disc = memory.NewMemCacheClient(d)
	}
	return c.disc, nil
}

func (c *conn) Mapper() (meta.ResettableRESTMapper, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mapper == nil {
		d, err := c.discovery()
		if err != nil {
			return nil, err
		}
		c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(d)
	}
	return c.mapper, nil
}

// Within is a copy of the connection whose requests end within d: its
// config and HTTP client carry that timeout, over the connection's own
// transport and rate limiter. Copies are kept, one per d.
func (c *conn) Within(d time.Duration) Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.within[d]; ok {
		return w
	}
	cfg := rest.CopyConfig(c.cfg) // the same RateLimiter
	cfg.Timeout = d
	w := &conn{origin: c.origin, cfg: cfg, opts: c.opts,
		http: &http.Client{Transport: c.http.Transport, Timeout: d}}
	if c.within == nil {
		c.within = map[time.Duration]*conn{}
	}
	c.within[d] = w
	return w
}

func (c *conn) Get(ctx context.Context, path string) ([]byte, error) {
	d, err := c.Discovery()
	if err != nil {
		return nil, err
	}
	return d.RESTClient().Get().AbsPath(path).DoRaw(ctx)
}

func (c *conn) Version(ctx context.Context) (string, error) {
	raw, err := c.Get(ctx, "/version")
	if err != nil {
		return "", err
	}
	var info version.Info
	if err := json.Unmarshal(raw, &info); err != nil {
		return "", fmt.Errorf("/version: %w", err)
	}
	return info.GitVersion, nil
}

// WriteKubeconfig writes the connection's context alone (WriteContext).
func (c *conn) WriteKubeconfig(path string) error {
	if c.opts == nil {
		return fmt.Errorf("kube: a connection made from a config has no kubeconfig to write")
	}
	o := *c.opts
	o.Context = c.origin.Context
	return WriteContext(o, path)
}
