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
	"fmt"
	"runtime/debug"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"

	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/observe"
)

// SourceName is the name the cluster source reports in SyncedObs.
const SourceName = "cluster"

// DefaultProbeTimeout bounds one reachability probe.
const DefaultProbeTimeout = 2 * time.Second

// Options say what in the cluster to watch.
type Options struct {
	// Scope is what to watch.
	Scope Scope
	// ProbeTimeout bounds the reachability probe; DefaultProbeTimeout when 0.
	ProbeTimeout time.Duration
}

// ProbeFunc asks the API server for its version: the reachability probe.
type ProbeFunc func(ctx context.Context) (gitVersion string, err error)

// Source watches a cluster. A Source with no connection reports the
// cluster as off and is synced at once.
type Source struct {
	opts    Options
	client  dynamic.Interface // nil when off
	mapper  meta.RESTMapper   // resolves the scope's resources through discovery
	probe   ProbeFunc
	server  string
	context string
}

// New watches the cluster conn reaches, through its dynamic client and
// REST mapper, with a probe of its own that ends within ProbeTimeout. A
// nil conn is no cluster at all (no kubeconfig anywhere): the Source
// reports the cluster as off.
func New(conn kube.Conn, opts Options) (*Source, error) {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	if conn == nil {
		return &Source{opts: opts}, nil
	}
	client, err := conn.Dynamic()
	if err != nil {
		return nil, err
	}
	mapper, err := conn.Mapper()
	if err != nil {
		return nil, err
	}
	pc, timeout := conn.Within(opts.ProbeTimeout), opts.ProbeTimeout
	probe := func(ctx context.Context) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return pc.Version(ctx)
	}
	return &Source{opts: opts, client: client, mapper: mapper, probe: probe, server: conn.Host(), context: conn.Origin().Context}, nil
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

func send(ctx context.Context, out chan<- observe.Observation, o observe.Observation) {
	select {
	case out <- o:
	case <-ctx.Done():
	}
}
