package learner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/clock"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/internal/latest"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/state"
)

// State is the class connection as the learner's indicator shows it.
type State string

const (
	// Connecting: nothing was sent yet.
	Connecting State = "connecting"
	// Connected: the last send succeeded.
	Connected State = "connected"
	// Retrying: the class cluster is down, slow or erring; the newest
	// record waits in memory and goes out when it is back.
	Retrying State = "retrying"
	// Refused: the class cluster refused the learner (credentials expired
	// or revoked, the record or namespace removed). labmate keeps trying,
	// slowly, in case the instructor fixes it.
	Refused State = "refused"
)

// Status is the publisher's state after its latest attempt.
type Status struct {
	State State
	// Pending is true while a newer record than the last one sent waits.
	Pending bool
	// Err is the latest failure (nil when connected).
	Err error
	At  time.Time
	// Hand names the hand in the record last sent (its Raised; zero:
	// none up): a hand raised or lowered in another terminal changes
	// the status, so the TUI's strip, which shows the hand, is drawn
	// again.
	Hand time.Time
}

// DefaultInterval is the sustained least time between two sends of one
// learner's record (a token bucket with a burst of two): a burst of
// changes costs one or two requests, never one per keystroke.
const DefaultInterval = 2 * time.Second

// PublisherConfig builds a Publisher.
type PublisherConfig struct {
	Client    kube.Interface
	Namespace string
	Identity  class.Identity
	// Interval is the least time between sends (DefaultInterval when 0).
	Interval time.Duration
	// Retry is the backoff after a failed send (1 s doubling to 30 s when
	// zero; refusals wait at least the cap).
	Retry wait.Backoff
	// Clock is the publisher's time (the real one when nil): records'
	// times, the interval between sends and the retry's backoff. Tests
	// step a fake one instead of sleeping.
	Clock clock.Clock
	// Mistake names a failing check's mistake (content.Lab.Mistake of
	// the learner's lab; nil names none).
	Mistake func(step int, check, message string) string
	// Sent, if set, is called after every successful send with the record
	// sent (tests and the benchmark time it).
	Sent func(class.Record)
}

// Publisher sends a learner's record to the class, latest wins: Publish
// folds an update into the record and returns at once; the sender sends
// the newest record, at most once per Interval, and keeps it in memory
// while the class cluster is away. Nothing here ever blocks the caller.
type Publisher struct {
	cfg PublisherConfig

	mu      sync.Mutex
	tracker *Tracker
	dirty   bool

	wake     chan struct{}
	statusCh chan Status
	status   atomic.Pointer[Status]
	requests atomic.Int64
	acks     <-chan class.Ack
	// handActs takes the learner's hand acts to the progress file (nil:
	// not written; Join with a Store).
	handActs chan state.HandAct
}

// RaiseHand raises the learner's hand on their current step, with an
// optional note (untrusted: clipped to printable text); LowerHand lowers
// it. The hand also lowers itself when its step passes.
func (p *Publisher) RaiseHand(note string) { p.hand(Hand{Up: true, Note: note}) }

// LowerHand lowers the learner's hand.
func (p *Publisher) LowerHand() { p.hand(Hand{}) }

// hand folds the learner's act in and hands it to the progress file's
// writer (Join with a Store): a raised hand with the step it went up
// on, or, before the first report, to be placed then; none when there
// was no step to raise it on.
func (p *Publisher) hand(h Hand) {
	p.mu.Lock()
	changed := p.tracker.Apply(Update{Hand: &h})
	p.dirty = p.dirty || changed
	h.At = p.tracker.handAt // when the tracker took it
	act := h.Act()
	if h.Up {
		up := p.tracker.Record().Hand
		switch {
		case up != nil && up.Raised.Equal(h.At.UTC().Truncate(time.Second)):
			act.Step = up.Step
		case p.tracker.pendingHand == nil:
			act.At = time.Time{} // nothing raised: nothing to record
		}
	}
	p.mu.Unlock()
	if changed {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	if p.handActs != nil && !act.At.IsZero() {
		latest.Offer(p.handActs, act)
	}
}

// Hand is the learner's raised hand now (nil: none up).
func (p *Publisher) Hand() *class.Hand {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tracker.Record().Hand
}

// Acks delivers the instructor's acknowledgements of the learner's
// hands (nil when the publisher watches none: Join without Hands).
func (p *Publisher) Acks() <-chan class.Ack { return p.acks }

// NewPublisher returns a publisher; Run sends.
func NewPublisher(cfg PublisherConfig) *Publisher {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Retry.Duration <= 0 {
		cfg.Retry = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.2, Steps: 6, Cap: 30 * time.Second}
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Identity.Run == "" {
		cfg.Identity.Run = newRun()
	}
	p := &Publisher{
		cfg:      cfg,
		tracker:  NewTracker(cfg.Identity, cfg.Clock.Now),
		wake:     make(chan struct{}, 1),
		statusCh: make(chan Status, 1),
	}
	p.tracker.NameMistakes(cfg.Mistake)
	p.status.Store(&Status{State: Connecting})
	return p
}

// newRun names one run of labmate's publisher: random, so that two runs
// writing one learner's record can be told apart on the board (two
// people on one class file), and nothing about the machine travels.
func newRun() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Publish folds u into the record; when something a teacher cares about
// changed, the sender is woken. It never blocks.
func (p *Publisher) Publish(u Update) {
	p.mu.Lock()
	changed := p.tracker.Apply(u)
	if changed {
		p.dirty = true
	}
	p.mu.Unlock()
	if changed {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// Record returns the record as it stands (what the next send carries).
func (p *Publisher) Record() class.Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tracker.Record()
}

// Statuses delivers the newest Status after each change of it (latest
// wins: a slow reader sees the newest, never a backlog).
func (p *Publisher) Statuses() <-chan Status { return p.statusCh }

// Status is the current status.
func (p *Publisher) Status() Status { return *p.status.Load() }

// Requests counts the API requests sent so far.
func (p *Publisher) Requests() int64 { return p.requests.Load() }

// Run sends until ctx ends. A panic in it is logged and ends publishing;
// it never reaches the lab.
func (p *Publisher) Run(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("class publisher panicked", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	// One send per Interval sustained, with a burst of two: a hint opened
	// right after a step turned green must not hold the next step's
	// change back by a whole interval.
	limiter := rate.NewLimiter(rate.Every(p.cfg.Interval), 2)
	backoff := p.cfg.Retry
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		// A wake whose change already went out with the previous send
		// must not spend the limiter's token: the next real change would
		// then wait for it.
		if !p.isDirty() {
			continue
		}
		now := p.cfg.Clock.Now()
		if !p.sleep(ctx, limiter.ReserveN(now, 1).DelayFrom(now)) {
			return
		}
		p.mu.Lock()
		rec, dirty := p.tracker.Record(), p.dirty
		p.dirty = false
		p.mu.Unlock()
		if !dirty {
			continue
		}
		err := p.send(ctx, rec)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			backoff = p.cfg.Retry
			var hand time.Time
			if rec.Hand != nil {
				hand = rec.Hand.Raised
			}
			p.setStatus(Status{State: Connected, Pending: p.isDirty(), Hand: hand})
			if p.cfg.Sent != nil {
				p.cfg.Sent(rec)
			}
			continue
		}
		p.mu.Lock()
		p.dirty = true
		p.mu.Unlock()
		st := Status{State: Retrying, Pending: true, Err: err, Hand: p.Status().Hand}
		delay := backoff.Step()
		if refused(err) {
			st.State = Refused
			delay = max(delay, backoff.Cap)
		}
		p.setStatus(st)
		if !p.sleep(ctx, delay) {
			return
		}
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// sleep waits d on the publisher's clock; false when ctx ended first.
func (p *Publisher) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-p.cfg.Clock.After(d):
		return true
	}
}

func (p *Publisher) isDirty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dirty
}

// send writes rec (applyRecord).
func (p *Publisher) send(ctx context.Context, rec class.Record) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	p.requests.Add(1)
	return applyRecord(ctx, p.cfg.Client, p.cfg.Namespace, rec, "")
}

// applyRecord writes rec with server-side apply: only the record's data
// key, owned by FieldManager. Init made the object; a learner may only
// patch it. A resourceVersion makes the write conditional on the object
// not having changed since it was read (a conflict otherwise).
func applyRecord(ctx context.Context, cs kube.Interface, ns string, rec class.Record, resourceVersion string) error {
	raw, err := class.Marshal(rec)
	if err != nil {
		return err
	}
	ac := corev1ac.ConfigMap(class.ObjectName(rec.Learner, rec.Lab), ns).
		WithData(map[string]string{class.DataKey: string(raw)})
	if resourceVersion != "" {
		ac.WithResourceVersion(resourceVersion)
	}
	_, err = cs.CoreV1().ConfigMaps(ns).Apply(ctx, ac, metav1.ApplyOptions{FieldManager: class.FieldManager, Force: true})
	return err
}

func (p *Publisher) setStatus(st Status) {
	st.At = p.cfg.Clock.Now()
	old := p.status.Swap(&st)
	if old.State == st.State && old.Pending == st.Pending && errors.Is(old.Err, st.Err) && old.Hand.Equal(st.Hand) {
		return
	}
	latest.Offer(p.statusCh, st)
}

// refused says the class cluster answered and said no: the learner's
// credentials or their record are not (or no longer) good.
func refused(err error) bool {
	return apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) || apierrors.IsNotFound(err)
}
