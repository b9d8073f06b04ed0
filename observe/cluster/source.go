// Package cluster is the observation source for live Kubernetes objects:
// informers on whatever resources a lab declares (any kind the API server
// serves, custom resources included: resolved through discovery, watched
// as unstructured objects), a reachability probe separate from the
// watches, and the connection state the checks need to never pass a step
// on stale data. It also keeps the one table of kinds (Table): what
// Kubernetes serves, plus a lab's CRDs.
//
// It is read-only (get, list, watch) and lab-agnostic: the caller passes
// in the Scope to watch.
package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/labhub/labmate/observe"
)

// SourceName is the name the cluster source reports in SyncedObs.
const SourceName = "cluster"

// DefaultProbeTimeout bounds one reachability probe.
const DefaultProbeTimeout = 2 * time.Second

// Options says which cluster to use and what in it to watch.
type Options struct {
	// Kubeconfig is an explicit kubeconfig path (kubectl's --kubeconfig);
	// empty means the default loading rules ($KUBECONFIG, ~/.kube/config,
	// then the sandbox's kubeconfig: internal/kubeconfig).
	Kubeconfig string
	// Context overrides the kubeconfig's current context (--context).
	Context string
	// Scope is what to watch.
	Scope Scope
	// ProbeTimeout bounds the reachability probe; DefaultProbeTimeout when 0.
	ProbeTimeout time.Duration
}

// ProbeFunc asks the API server for its version: the reachability probe.
type ProbeFunc func(ctx context.Context) (gitVersion string, err error)

// Source watches a cluster. A Source with no kubeconfig reports the
// cluster as off and is synced at once.
type Source struct {
	opts    Options
	client  dynamic.Interface // nil when off
	mapper  meta.RESTMapper   // resolves the scope's resources through discovery
	probe   ProbeFunc
	server  string
	context string
}

// New loads the kubeconfig the way kubectl does. It fails when a
// kubeconfig exists (or was named with --kubeconfig/--context) but cannot
// be used; when there is none at all, the Source reports ClusterOff.
func New(opts Options) (*Source, error) {
	silenceKlog()
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	rc, err := loadConfig(opts)
	if err != nil {
		return nil, err
	}
	if rc.cfg == nil {
		return &Source{opts: opts}, nil
	}
	client, err := dynamic.NewForConfig(rc.cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(rc.cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	probe, err := versionProbe(rc.cfg, opts.ProbeTimeout)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return &Source{opts: opts, client: client, mapper: mapper, probe: probe, server: rc.cfg.Host, context: rc.context}, nil
}

// NewForClient builds a Source on an existing client and mapper (tests
// use a fake dynamic client and Table.RESTMapper) with the given probe.
func NewForClient(client dynamic.Interface, mapper meta.RESTMapper, probe ProbeFunc, opts Options) *Source {
	silenceKlog()
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	return &Source{opts: opts, client: client, mapper: mapper, probe: probe}
}

// Name implements observe.Source.
func (s *Source) Name() string { return SourceName }

// Server is the API server URL in use ("" when off).
func (s *Source) Server() string { return s.server }

// Run implements observe.Source: it sends the connection state, every
// object in scope, a Synced observation once the caches are filled (or
// once it is clear they will not fill soon), then changes, until ctx ends.
func (s *Source) Run(ctx context.Context, out chan<- observe.Observation) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cluster source panic: %v\n%s", r, debug.Stack())
		}
	}()
	if s.client == nil {
		send(ctx, out, observe.Observation{Time: time.Now(), Cluster: &observe.ClusterObs{State: observe.ClusterOff}})
		send(ctx, out, observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: SourceName}})
		<-ctx.Done()
		return nil
	}
	return newSession(ctx, s, out).run()
}

// versionProbe GETs /version with its own short timeout, on a client
// separate from the watches.
func versionProbe(cfg *rest.Config, timeout time.Duration) (ProbeFunc, error) {
	pc := rest.CopyConfig(cfg)
	pc.Timeout = timeout
	dc, err := discovery.NewDiscoveryClientForConfig(pc)
	if err != nil {
		return nil, err
	}
	rc := dc.RESTClient()
	return func(ctx context.Context) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		raw, err := rc.Get().AbsPath("/version").Do(ctx).Raw()
		if err != nil {
			return "", err
		}
		var info version.Info
		if err := json.Unmarshal(raw, &info); err != nil {
			return "", fmt.Errorf("/version: %w", err)
		}
		return info.GitVersion, nil
	}, nil
}

func send(ctx context.Context, out chan<- observe.Observation, o observe.Observation) {
	select {
	case out <- o:
	case <-ctx.Done():
	}
}
