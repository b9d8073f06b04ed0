package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/observe"
)

// Probe retry backoff while the API server is unreachable. When it is
// reachable nothing polls: watch errors trigger the next probe.
const (
	probeRetryMin = time.Second
	probeRetryMax = 30 * time.Second
)

// internalKey names errors of labmate's own handlers in the health map.
const internalKey = "labmate"

// session is one Run of a Source: its informers and the goroutine that
// owns the connection state.
type session struct {
	ctx    context.Context
	src    *Source
	out    chan<- observe.Observation
	events chan connEvent
}

type connEventKind int

const (
	evHealth   connEventKind = iota // an informer's list/watch failed (err) or succeeded (nil)
	evSynced                        // every handler received its initial list
	evProbe                         // a probe finished
	evResolved                      // discovery said which resources are served
)

type connEvent struct {
	kind     connEventKind
	informer string
	verb     string   // "list" or "watch" for evHealth from the calls themselves
	refusal  *refusal // set when err is a refusal
	err      error
	version  string
	missing  []observe.Missing // evResolved: resources the server does not serve
}

func newSession(ctx context.Context, src *Source, out chan<- observe.Observation) *session {
	return &session{ctx: ctx, src: src, out: out, events: make(chan connEvent, 64)}
}

// report hands an event to the state loop; it never blocks past ctx.
func (s *session) report(ev connEvent) {
	select {
	case s.events <- ev:
	case <-s.ctx.Done():
	}
}

// guard recovers a panic in a goroutine or callback of labmate's own and
// reports it as an error of the source instead of crashing the program.
func (s *session) guard(where string) {
	if r := recover(); r != nil {
		go s.report(connEvent{kind: evHealth, informer: internalKey,
			err: fmt.Errorf("%s: panic: %v\n%s", where, r, debug.Stack())})
	}
}

func (s *session) run() error {
	// Connecting goes out before any object does.
	st := &connState{health: map[string]problem{}, refused: map[string]refusal{}}
	s.emit(st)
	go s.watch()
	s.loop(st)
	return nil
}

// watch resolves the scope through discovery, then runs an informer per
// spec and says when every one has its initial list.
func (s *session) watch() {
	defer s.guard("watch")
	scope, missing, ok := s.resolve()
	if !ok {
		return
	}
	s.report(connEvent{kind: evResolved, missing: missing})
	var synced []cache.InformerSynced
	for _, sp := range watchSpecs(s.src.client, scope) {
		inf, reg, err := s.informer(sp)
		if err != nil {
			s.report(connEvent{kind: evHealth, informer: internalKey, err: err})
			return
		}
		synced = append(synced, reg.HasSynced)
		go func() {
			defer s.guard("informer " + sp.desc)
			inf.RunWithContext(s.ctx)
		}()
	}
	if cache.WaitForCacheSync(s.ctx.Done(), synced...) {
		s.report(connEvent{kind: evSynced})
	}
}

// informer builds one scoped informer whose list/watch calls report their
// outcome to the state loop, with managed fields stripped and handlers
// that turn deliveries into observations.
func (s *session) informer(sp watchSpec) (cache.SharedIndexInformer, cache.ResourceEventHandlerRegistration, error) {
	health := func(verb string, err error) {
		if s.ctx.Err() != nil {
			return
		}
		ev := connEvent{kind: evHealth, informer: sp.desc, verb: verb, err: err}
		if verb != "" {
			ev.refusal = refusalEntry(sp, verb, err)
		}
		s.report(ev)
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			obj, err := sp.list(ctx, o)
			health("list", err)
			return obj, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := sp.watch(ctx, o)
			health("watch", err)
			return w, err
		},
	}
	inf := cache.NewSharedIndexInformerWithOptions(lw, &unstructured.Unstructured{}, cache.SharedIndexInformerOptions{ObjectDescription: sp.desc})
	if err := inf.SetTransform(s.stripManagedFields); err != nil {
		return nil, nil, err
	}
	if err := inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) {
		// A refusal came from the list or watch call, which reported it
		// with its verb already.
		if _, refused := refusalOf(err); !refused && !benignWatchError(err) {
			health("", err)
		}
	}); err != nil {
		return nil, nil, err
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.deliver(sp, observe.OpUpsert, obj) },
		UpdateFunc: func(_, obj any) { s.deliver(sp, observe.OpUpsert, obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			s.deliver(sp, observe.OpDelete, obj)
		},
	})
	return inf, reg, err
}

func (s *session) stripManagedFields(obj any) (out any, err error) {
	defer s.guard("transform")
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

func (s *session) deliver(sp watchSpec, op observe.Op, obj any) {
	defer s.guard("handler " + sp.desc)
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || !sp.keep(u) {
		return
	}
	send(s.ctx, s.out, observe.Observation{Time: time.Now(), Object: &observe.ObjectObs{
		Op: op, Kind: sp.kind, Namespace: u.GetNamespace(), Name: u.GetName(), Object: typed(u),
	}})
}

// benignWatchError is what client-go's default handler treats as a normal
// end of a watch: the reflector lists or watches again by itself.
func benignWatchError(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// refusalOf returns the API status of an error the server will keep
// giving until someone changes the cluster: 401 (credentials), 403 (RBAC),
// 404 (a resource type the server does not serve). Waiting cannot fix
// these, so they are a state of their own, not "connecting".
func refusalOf(err error) (metav1.Status, bool) {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) {
		return metav1.Status{}, false
	}
	st := status.Status()
	switch st.Code {
	case 401, 403, 404:
		return st, true
	}
	return metav1.Status{}, false
}

// refusal is one refused call: its entry in ClusterObs.Err, as
// observe.ClusterError documents it, and the same in structured form.
type refusal struct {
	text string
	obs  observe.Refusal
}

// refusalEntry is the refusal err stands for, or nil when err is not a
// refusal. Its text reads
// "<verb> <resource>[ in <namespace>]: <code> <reason> (<server message>)".
func refusalEntry(sp watchSpec, verb string, err error) *refusal {
	st, ok := refusalOf(err)
	if !ok {
		return nil
	}
	where := ""
	if sp.namespace != "" {
		where = " in " + sp.namespace
	}
	return &refusal{
		text: fmt.Sprintf("%s %s%s: %d %s (%s)", verb, sp.resource, where, st.Code, st.Reason, describe(err, 0)),
		obs:  observe.Refusal{Verb: verb, Resource: sp.resource, Namespace: sp.namespace, Code: st.Code},
	}
}

// reachability is what the latest probe said.
type reachability int

const (
	reachUnknown reachability = iota
	reachYes
	reachNo
)

// connState is the state loop's memory.
type connState struct {
	reach     reachability
	probeErr  problem
	version   string
	resolved  bool               // discovery said what is served
	missing   []observe.Missing  // resources the server does not serve
	synced    bool               // every handler got its initial list
	health    map[string]problem // informer -> last list/watch error, until one succeeds
	refused   map[string]refusal // "<informer> <verb>" -> refusal entry, until that verb succeeds
	announce  bool               // SyncedObs is due
	announced bool               // SyncedObs sent
	last      *observe.ClusterObs
}

// loop owns the connection state: it runs probes (on start, on watch
// errors, and with backoff while unreachable), and emits ClusterObs when
// the state a learner would see changes.
func (s *session) loop(st *connState) {
	defer s.guard("connection state")
	probing := false
	backoff := probeRetryMin
	var retry *time.Timer
	var retryC <-chan time.Time
	startProbe := func() {
		if probing {
			return
		}
		probing = true
		go func() {
			defer s.guard("probe")
			v, err := s.src.probe(s.ctx)
			s.report(connEvent{kind: evProbe, err: err, version: v})
		}()
	}
	stopRetry := func() {
		if retry != nil {
			retry.Stop()
			retry, retryC = nil, nil
		}
	}
	defer stopRetry()

	startProbe()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-retryC:
			retry, retryC = nil, nil
			startProbe()
		case ev := <-s.events:
			switch ev.kind {
			case evProbe:
				probing = false
				// A server that refuses the probe (bad credentials) is
				// reachable: the informers' refusals say what is wrong.
				if _, refused := refusalOf(ev.err); ev.err != nil && !refused {
					st.reach, st.probeErr = reachNo, problemOf(ev.err, s.src.opts.ProbeTimeout)
					stopRetry()
					retry = time.NewTimer(backoff)
					retryC = retry.C
					backoff = min(2*backoff, probeRetryMax)
					st.announce = true
				} else {
					st.reach, st.probeErr, st.version = reachYes, problem{}, ev.version
					backoff = probeRetryMin
					stopRetry()
				}
			case evResolved:
				st.resolved, st.missing = true, ev.missing
			case evSynced:
				st.synced, st.announce = true, true
				if st.reach == reachNo {
					stopRetry()
					startProbe()
				}
			case evHealth:
				if st.takeHealth(ev, s.src.opts.ProbeTimeout) {
					startProbe()
				}
			}
			s.emit(st)
		}
	}
}

// takeHealth takes one informer's list or watch result into st. It reports
// whether reachability is worth probing again: an error the server did
// not answer, while it is not already known unreachable.
func (st *connState) takeHealth(ev connEvent, timeout time.Duration) (reprobe bool) {
	if ev.err == nil {
		delete(st.health, ev.informer)
		// A list that succeeds says nothing of the watch after it; a
		// watch needs the list before it.
		delete(st.refused, ev.informer+" list")
		if ev.verb == "watch" {
			delete(st.refused, ev.informer+" watch")
		}
		return false
	}
	if ev.refusal != nil {
		delete(st.health, ev.informer)
		st.refused[ev.informer+" "+ev.verb] = *ev.refusal
		st.announce = true // the caches may never fill: `labmate check` must not wait
		return false
	}
	st.health[ev.informer] = problemOf(ev.err, timeout)
	var status apierrors.APIStatus
	if errors.As(ev.err, &status) {
		// The server answered (forbidden, not found, ...): waiting on
		// these caches would hang `labmate check`.
		st.announce = true
		return false
	}
	return st.reach != reachNo
}

// emit sends the ClusterObs for st when it differs from the last one, and
// the source's SyncedObs the first time st.announce is set.
func (s *session) emit(st *connState) {
	obs := observe.ClusterObs{Server: s.src.server, Context: s.src.context, Version: st.version, Missing: st.missing}
	switch {
	case st.reach == reachNo:
		obs.State, obs.Err, obs.Cause = observe.ClusterUnreachable, st.probeErr.text, st.probeErr.cause
	case len(st.refused) > 0:
		obs.State = observe.ClusterError
		obs.Err, obs.Refusals = joinRefusals(st.refused)
	case st.synced && len(st.health) == 0:
		obs.State = observe.ClusterSynced
	default:
		obs.State = observe.ClusterConnecting
		obs.Err, obs.Cause = joinHealth(st.health)
	}
	if st.last == nil || !reflect.DeepEqual(*st.last, obs) {
		st.last = &obs
		send(s.ctx, s.out, observe.Observation{Time: time.Now(), Cluster: &obs})
	}
	if st.announce && !st.announced {
		st.announced = true
		send(s.ctx, s.out, observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: SourceName}})
	}
}

// joinHealth words the informers' errors for logs, and gives the cause of
// the first one that has one.
func joinHealth(h map[string]problem) (string, observe.ClusterCause) {
	if len(h) == 0 {
		return "", ""
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	var cause observe.ClusterCause
	for i, k := range keys {
		parts[i] = k + ": " + h[k].text
		if cause == "" {
			cause = h[k].cause
		}
	}
	return strings.Join(parts, "; "), cause
}

// problem is a failed call: the client's words (for logs and traces) and
// its cause by type (for the learner's Korean).
type problem struct {
	text  string
	cause observe.ClusterCause
}

func problemOf(err error, probeTimeout time.Duration) problem {
	return problem{text: describe(err, probeTimeout), cause: observe.ClusterCause(kube.CauseOf(err))}
}

// joinRefusals lists refusals sorted by their text, as
// observe.ClusterError documents, in both forms.
func joinRefusals(r map[string]refusal) (string, []observe.Refusal) {
	all := make([]refusal, 0, len(r))
	for _, e := range r {
		all = append(all, e)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].text < all[j].text })
	texts := make([]string, len(all))
	obs := make([]observe.Refusal, len(all))
	for i, e := range all {
		texts[i], obs[i] = e.text, e.obs
	}
	return strings.Join(texts, "; "), obs
}

// describe shortens a client error to the part a learner can act on: no
// request URL, the server's own message for API errors.
func describe(err error, probeTimeout time.Duration) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		st := status.Status()
		if st.Message != "" {
			return st.Message
		}
		return string(st.Reason)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", probeTimeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
