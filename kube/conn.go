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
)

// Conn is one connection to a cluster, as k9s's APIClient and
// controller-runtime's cluster.Cluster are: one rest.Config and one HTTP
// client (one set of TCP connections, one rate limiter), and the typed,
// dynamic and discovery clients and the REST mapper made from them the
// first time they are asked for. Every part of labmate that talks to a
// cluster (the cluster source, the sandbox, doctor, the class, lab
// verify) takes a Conn; none loads a kubeconfig or builds a client of
// its own.
//
// Requests through a Conn have no client timeout (watches must not have
// one); Within gives a copy whose every request ends in time, for probes
// and one-off calls.
type Conn struct {
	// Context, Namespace and User are the kubeconfig context in use and
	// its namespace and user ("" when none); Paths the files it was read
	// from. All empty for a connection made from a config alone.
	Context, Namespace, User string
	Paths                    []string

	cfg  *rest.Config
	http *http.Client
	// opts loaded the kubeconfig (WriteKubeconfig writes its context);
	// nil for a connection made from a config alone.
	opts *Options

	mu       sync.Mutex
	typed    Interface
	dyn      dynamic.Interface
	disc     discovery.CachedDiscoveryInterface
	mapper   meta.ResettableRESTMapper
	within   map[time.Duration]*Conn
	fake     bool
	versionF func(context.Context) (string, error)
}

// Open loads the kubeconfig o names (Load) and connects to its cluster.
// Failures to load are *LoadError.
func Open(o Options) (*Conn, error) {
	l, err := Load(o)
	if err != nil {
		return nil, err
	}
	c, err := ForConfig(l.Config)
	if err != nil {
		return nil, &LoadError{Kind: Invalid, Paths: l.Paths, Context: l.Context, Err: err}
	}
	c.Context, c.Namespace, c.User, c.Paths = l.Context, l.Namespace, l.User, l.Paths
	c.opts = &o
	return c, nil
}

// ForConfig connects with cfg as it is (a copy of it): one HTTP client
// for every client the connection makes.
func ForConfig(cfg *rest.Config) (*Conn, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return &Conn{cfg: cfg, http: hc}, nil
}

// Parts are the clients of a connection made by hand (kubefake): each
// getter of the Conn returns its part; a nil part is an error when asked
// for.
type Parts struct {
	Host      string
	Typed     Interface
	Dynamic   dynamic.Interface
	Discovery discovery.CachedDiscoveryInterface
	Mapper    meta.RESTMapper
	// Version answers the reachability probe.
	Version func(context.Context) (string, error)
}

// Assemble is a connection of the given parts, for tests: kubefake.Conn
// builds the usual one.
func Assemble(p Parts) *Conn {
	c := &Conn{cfg: &rest.Config{Host: p.Host}, fake: true, typed: p.Typed, dyn: p.Dynamic,
		disc: p.Discovery, versionF: p.Version}
	switch m := p.Mapper.(type) {
	case nil:
	case meta.ResettableRESTMapper:
		c.mapper = m
	default:
		c.mapper = fixedMapper{m}
	}
	return c
}

// fixedMapper is a mapper that has nothing to forget (a table's).
type fixedMapper struct{ meta.RESTMapper }

func (fixedMapper) Reset() {}

// Host is the API server's URL.
func (c *Conn) Host() string { return c.cfg.Host }

// Config is a copy of the connection's client config, for what must
// build on it (a child process's kubeconfig is WriteKubeconfig's).
func (c *Conn) Config() *rest.Config { return rest.CopyConfig(c.cfg) }

// errNoPart is asking a hand-made connection for a client it lacks.
func errNoPart(what string) error { return fmt.Errorf("kube: this connection has no %s client", what) }

// Typed is the typed client of the groups labmate calls (Interface).
func (c *Conn) Typed() (Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.typed == nil {
		if c.fake {
			return nil, errNoPart("typed")
		}
		cs, err := newForConfigAndClient(c.cfg, c.http)
		if err != nil {
			return nil, err
		}
		c.typed = cs
	}
	return c.typed, nil
}

// Dynamic is the dynamic client: objects of any kind, unstructured.
func (c *Conn) Dynamic() (dynamic.Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dyn == nil {
		if c.fake {
			return nil, errNoPart("dynamic")
		}
		d, err := dynamic.NewForConfigAndClient(c.cfg, c.http)
		if err != nil {
			return nil, err
		}
		c.dyn = d
	}
	return c.dyn, nil
}

// Discovery is the discovery client, its answers cached in memory for
// the connection's life (Mapper's Reset forgets them).
func (c *Conn) Discovery() (discovery.CachedDiscoveryInterface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.discovery()
}

func (c *Conn) discovery() (discovery.CachedDiscoveryInterface, error) {
	if c.disc == nil {
		if c.fake {
			return nil, errNoPart("discovery")
		}
		d, err := discovery.NewDiscoveryClientForConfigAndClient(c.cfg, c.http)
		if err != nil {
			return nil, err
		}
		c.disc = memory.NewMemCacheClient(d)
	}
	return c.disc, nil
}

// Mapper resolves kinds and resources through discovery, lazily: a
// deferred discovery REST mapper on the connection's cached discovery.
// After creating a CustomResourceDefinition, Reset it to learn the new
// kind.
func (c *Conn) Mapper() (meta.ResettableRESTMapper, error) {
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

// Within is a copy of the connection whose every request ends within d
// (its own HTTP client with that timeout, its own clients): probes and
// one-off requests, never watches. Copies are kept, one per d.
func (c *Conn) Within(d time.Duration) *Conn {
	if c.fake {
		return c
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.within[d]; ok {
		return w
	}
	cfg := rest.CopyConfig(c.cfg)
	cfg.Timeout = d
	w := &Conn{Context: c.Context, Namespace: c.Namespace, User: c.User, Paths: c.Paths, cfg: cfg, opts: c.opts}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		// The same config made c's client: keep c's, bounded by ctx.
		hc = c.http
	}
	w.http = hc
	if c.within == nil {
		c.within = map[time.Duration]*Conn{}
	}
	c.within[d] = w
	return w
}

// Get is a GET of an absolute path of the API server (/version,
// /readyz), its body.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, error) {
	d, err := c.Discovery()
	if err != nil {
		return nil, err
	}
	return d.RESTClient().Get().AbsPath(path).DoRaw(ctx)
}

// Version asks the API server for its version (GET /version): the
// reachability probe, on a Within copy so that it ends in time.
func (c *Conn) Version(ctx context.Context) (string, error) {
	if c.versionF != nil {
		return c.versionF(ctx)
	}
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

// WriteKubeconfig writes the connection's context alone and
// self-contained to path (WriteContext): a kubeconfig that lets a child
// process such as kubectl reach this cluster and no other. labmate
// itself never reads it back.
func (c *Conn) WriteKubeconfig(path string) error {
	if c.opts == nil {
		return fmt.Errorf("kube: a connection made from a config has no kubeconfig to write")
	}
	o := *c.opts
	o.Context = c.Context
	return WriteContext(o, path)
}
