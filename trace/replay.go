package trace

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// SourceName is the replay source's name (distinct from every live
// source's).
const SourceName = "replay"

// Instant is the speed that plays without waiting between records.
const Instant = 0.0

// ReplayOptions configure a replay.
type ReplayOptions struct {
	// Speed scales the recorded pace: 1 as recorded, 10 ten times faster,
	// Instant without waiting.
	Speed float64
	// MaxGap, when positive, shortens recorded pauses longer than it to
	// it (a learner's coffee break need not be replayed).
	MaxGap time.Duration
	// Marks are record counts at which a fast-forward stops (see
	// FastForward); Changes(...) gives the counts at which a step's status
	// changed.
	Marks []int
}

// Progress is where a replay is.
type Progress struct {
	Pos, Total  int           // records delivered, records in the trace
	At, Length  time.Duration // recorded time of the last delivered record, of the whole trace
	Speed       float64       // Instant is 0
	Paused      bool
	FastForward bool
	Done        bool // every record delivered
}

// Control steers a running replay. Every method is safe for concurrent
// use and returns at once.
type Control interface {
	// TogglePause stops delivering records, or resumes where it stopped.
	TogglePause()
	// SetSpeed changes the pace (1, 10, Instant, ...); negative values
	// are ignored.
	SetSpeed(speed float64)
	// FastForward delivers records without waiting, even when paused,
	// until the next mark, StopFastForward, or the end. With marks set to
	// the record counts where a step's status changed, it is "jump to
	// the next step's change"; afterwards the replay goes on at its speed
	// (or stays paused).
	FastForward()
	// StopFastForward ends a fast-forward where it is.
	StopFastForward()
	// Progress says where the replay is.
	Progress() Progress
	// Updates receives a value (coalesced) whenever Progress changed.
	Updates() <-chan struct{}
}

// Replay is an observe.Source that plays a trace back: the recorded
// observations, in order, with their recorded timing scaled by a speed.
// It also sends Synced{Source: "replay"} right after every source that
// synced in the recording had synced, so the engine's Ready means what it
// meant live.
type Replay struct {
	name    string // the trace's name, for Status
	recs    []Record
	play    []time.Duration // recorded offsets with long gaps shortened
	readyAt int             // index of the record after which "replay" is synced; -1: at once
	marks   []int

	mu      sync.Mutex
	pos     int           // records delivered
	vpos    time.Duration // play offset reached
	speed   float64
	paused  bool
	ff      bool
	ffUntil int // stop fast-forwarding once pos reaches it (0: at the end)
	done    bool
	running bool
	kick    chan struct{} // wakes Run after a control change
	updates chan struct{}
}

var _ Control = (*Replay)(nil)

// ReplaySource returns a replay of t. It never runs anything the trace
// contains: script runs are replayed as the outcomes that were recorded.
func ReplaySource(t *Trace, opts ReplayOptions) *Replay {
	r := &Replay{
		name:    t.Name,
		recs:    t.Records,
		play:    make([]time.Duration, len(t.Records)),
		readyAt: -1,
		speed:   validSpeed(opts.Speed, 1),
		kick:    make(chan struct{}, 1),
		updates: make(chan struct{}, 1),
	}
	var prev, at time.Duration
	first := map[string]int{}
	for i, rec := range t.Records {
		gap := rec.At - prev
		if i == 0 || gap < 0 {
			gap = 0 // the first record plays at once; time never runs backwards
		}
		if opts.MaxGap > 0 && gap > opts.MaxGap {
			gap = opts.MaxGap
		}
		at += gap
		prev = max(prev, rec.At)
		r.play[i] = at
		if s := rec.Obs.Synced; s != nil {
			if _, seen := first[s.Source]; !seen {
				first[s.Source] = i
				r.readyAt = max(r.readyAt, i)
			}
		}
	}
	r.marks = append([]int(nil), opts.Marks...)
	sort.Ints(r.marks)
	return r
}

func validSpeed(s, fallback float64) float64 {
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return fallback
	}
	return s
}

// Name implements observe.Source.
func (r *Replay) Name() string { return SourceName }

// Run implements observe.Source: it delivers the records and returns nil
// after the last one (or when ctx is done).
func (r *Replay) Run(ctx context.Context, out chan<- observe.Observation) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("replay panic: %v", p)
		}
	}()
	r.mu.Lock()
	if r.running {
		r.mu.Unlock()
		return fmt.Errorf("replay already running")
	}
	r.running = true
	r.mu.Unlock()

	if r.readyAt < 0 {
		o := syncedObs()
		if len(r.recs) > 0 {
			o.Time = r.recs[0].Obs.Time
		}
		if !send(ctx, out, o) {
			return nil
		}
	}
	for r.step(ctx, out) {
	}
	return nil
}

// send hands o over unless ctx ends first.
func send(ctx context.Context, out chan<- observe.Observation, o observe.Observation) bool {
	select {
	case out <- o:
		return true
	case <-ctx.Done():
		return false
	}
}

// syncedObs says that the replay source has synced.
func syncedObs() observe.Observation {
	return observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: SourceName}}
}

// step delivers the next record once its time comes (or waits while
// paused, or for a control that changed). more is false when the replay
// has ended: every record delivered, or ctx done.
func (r *Replay) step(ctx context.Context, out chan<- observe.Observation) (more bool) {
	r.mu.Lock()
	if r.pos >= len(r.recs) {
		r.done, r.ff = true, false
		r.mu.Unlock()
		r.notify()
		return false
	}
	i := r.pos
	if r.paused && !r.ff {
		r.mu.Unlock()
		r.sleep(ctx, -1)
		return ctx.Err() == nil
	}
	fast := r.ff || r.speed == Instant
	var wait time.Duration
	if !fast {
		wait = time.Duration(float64(r.play[i]-r.vpos) / r.speed)
	}
	speed := r.speed
	r.mu.Unlock()

	if !r.await(ctx, out, i, fast, wait, speed) {
		return ctx.Err() == nil
	}
	return r.deliver(ctx, out, i)
}

// await waits until record i is due: wait at speed, or, fast, only long
// enough for the engine to take what came before. due is false when ctx
// ended or a control changed (the time played so far is then accounted
// for, and the caller decides again).
func (r *Replay) await(ctx context.Context, out chan<- observe.Observation, i int, fast bool, wait time.Duration, speed float64) (due bool) {
	if fast {
		if i > 0 && r.play[i] > r.play[i-1] {
			yieldTo(ctx, out)
		}
		return true
	}
	if wait <= 0 {
		return true
	}
	start := time.Now()
	woke := r.sleep(ctx, wait)
	if ctx.Err() != nil {
		return false
	}
	if !woke {
		r.mu.Lock()
		r.vpos = min(r.vpos+time.Duration(float64(time.Since(start))*speed), r.play[i])
		r.mu.Unlock()
		return false
	}
	return true
}

// deliver sends record i (and, after the record at which every recorded
// source had synced, the replay's own Synced), then moves on past it.
// It returns false when ctx ended first.
func (r *Replay) deliver(ctx context.Context, out chan<- observe.Observation, i int) bool {
	if !send(ctx, out, r.recs[i].Obs) {
		return false
	}
	if i == r.readyAt {
		o := syncedObs()
		o.Time = r.recs[i].Obs.Time
		if !send(ctx, out, o) {
			return false
		}
	}
	r.mu.Lock()
	r.pos = i + 1
	r.vpos = r.play[i]
	if r.ff && r.ffUntil > 0 && r.pos >= r.ffUntil {
		r.ff = false
	}
	r.mu.Unlock()
	r.notify()
	return true
}

// sleep waits for d (d < 0: until woken). It returns true when the time
// passed, false when a control change or ctx woke it.
func (r *Replay) sleep(ctx context.Context, d time.Duration) bool {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-r.kick:
		return false
	case <-ctx.Done():
		return false
	}
}

// yieldTo lets the reader of out (the engine) take what was sent before
// the next burst of records follows, so that at high speed the engine
// still evaluates roughly where it did live, rather than folding the whole
// trace into one evaluation (facts of the past are remembered at
// evaluations). It gives up after a short while: it is pacing, not a
// guarantee. FinalReport is the exact path.
func yieldTo(ctx context.Context, out chan<- observe.Observation) {
	deadline := time.Now().Add(50 * time.Millisecond)
	for len(out) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(100 * time.Microsecond)
	}
	if len(out) == 0 {
		time.Sleep(100 * time.Microsecond)
	}
}

func (r *Replay) wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
	r.notify()
}

func (r *Replay) notify() {
	select {
	case r.updates <- struct{}{}:
	default:
	}
}

// TogglePause implements Control.
func (r *Replay) TogglePause() {
	r.mu.Lock()
	r.paused = !r.paused
	r.mu.Unlock()
	r.wake()
}

// SetSpeed implements Control.
func (r *Replay) SetSpeed(speed float64) {
	r.mu.Lock()
	r.speed = validSpeed(speed, r.speed)
	r.mu.Unlock()
	r.wake()
}

// FastForward implements Control.
func (r *Replay) FastForward() {
	r.mu.Lock()
	if !r.done {
		r.ff = true
		r.ffUntil = 0
		if k := sort.SearchInts(r.marks, r.pos+1); k < len(r.marks) {
			r.ffUntil = r.marks[k]
		}
	}
	r.mu.Unlock()
	r.wake()
}

// StopFastForward implements Control.
func (r *Replay) StopFastForward() {
	r.mu.Lock()
	r.ff = false
	r.mu.Unlock()
	r.wake()
}

// SetMarks replaces the record counts a fast-forward stops at.
func (r *Replay) SetMarks(marks []int) {
	m := append([]int(nil), marks...)
	sort.Ints(m)
	r.mu.Lock()
	r.marks = m
	r.mu.Unlock()
}

// Progress implements Control.
func (r *Replay) Progress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := Progress{Pos: r.pos, Total: len(r.recs), Speed: r.speed, Paused: r.paused, FastForward: r.ff, Done: r.done}
	if r.pos > 0 {
		p.At = r.recs[r.pos-1].At
	}
	if n := len(r.recs); n > 0 {
		p.Length = r.recs[n-1].At
	}
	return p
}

// Updates implements Control.
func (r *Replay) Updates() <-chan struct{} { return r.updates }

// Done reports whether every record has been delivered (tui.ReplayControl).
func (r *Replay) Done() bool { return r.Progress().Done }

// Speeds are the speeds CycleSpeed steps through.
var Speeds = []float64{1, 10, Instant}

// CycleSpeed moves to the next of Speeds (1, 10, instant, then 1 again);
// from any other speed it goes back to 1.
func (r *Replay) CycleSpeed() {
	r.mu.Lock()
	next := Speeds[0]
	for i, s := range Speeds {
		if s == r.speed {
			next = Speeds[(i+1)%len(Speeds)]
		}
	}
	r.mu.Unlock()
	r.SetSpeed(next)
}

// NextChange fast-forwards to the next mark: with the marks from
// Marks(changes), to the next record that changes a step's status. It is
// FastForward under the name the TUI uses.
func (r *Replay) NextChange() { r.FastForward() }

// Status is Progress().Label for this replay's trace: a short Korean line
// for the TUI's header.
func (r *Replay) Status() string { return r.Progress().Label(r.name) }

// DisplayName is how a trace is named to the learner: "참조 기록" for the
// built-in reference run, else the file's base name.
func DisplayName(name string) string {
	if name == ReferenceName {
		return content.Msg("trace.reference_name")
	}
	return filepath.Base(name)
}

// SpeedLabel is a speed in Korean ("10배속", "즉시").
func SpeedLabel(speed float64) string {
	if speed == Instant {
		return content.Msg("trace.speed_instant")
	}
	return content.Msg("trace.speed", "x", strconv.FormatFloat(speed, 'g', 4, 64))
}

// Label describes where a replay is, in Korean, for a banner:
// "재생 중 | 참조 기록 | 10배속 | 45/812 | 1:23/5:40". It keeps to
// characters of one cell in every locale (no ·, →), as header chrome must.
func (p Progress) Label(name string) string {
	state := "trace.state_playing"
	switch {
	case p.Done:
		state = "trace.state_done"
	case p.FastForward:
		state = "trace.state_forward"
	case p.Paused:
		state = "trace.state_paused"
	}
	return content.Msg("trace.banner", "state", content.Msg(state), "name", DisplayName(name), "speed", SpeedLabel(p.Speed),
		"pos", p.Pos, "total", p.Total, "at", Clock(p.At), "length", Clock(p.Length))
}

// Clock formats a trace offset as m:ss (h:mm:ss past an hour).
func Clock(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}
