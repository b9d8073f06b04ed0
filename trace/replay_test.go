package trace

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/labmate/observe"
)

// timedTrace has one file record per offset, then (when synced) a Synced
// record of "files" right after the first.
func timedTrace(synced bool, offsets ...time.Duration) *Trace {
	tr := &Trace{Name: "mem", Header: Header{Format: Format, Version: Version, Lab: "gpu-incident", Started: t0}}
	for i, at := range offsets {
		tr.Records = append(tr.Records, Record{Line: len(tr.Records) + 2, At: at, Obs: observe.Observation{
			Time: t0.Add(at), File: &observe.FileObs{Path: fmt.Sprintf("f%d", i), State: observe.FileMissing},
		}})
		if synced && i == 0 {
			tr.Records = append(tr.Records, Record{Line: len(tr.Records) + 2, At: at, Obs: observe.Observation{
				Time: t0.Add(at), Synced: &observe.SyncedObs{Source: "files"},
			}})
		}
	}
	return tr
}

type played struct {
	obs observe.Observation
	at  time.Duration // since Run started, when it was taken
	// from is when the collector began to wait for it: no later than the
	// replay handed it over, so no later than the replay began to wait
	// for the next record. Gaps measured from it are never too short,
	// however late a loaded machine ran the collector.
	from time.Duration
}

// play runs a replay in the background and collects what it sends.
func play(t *testing.T, r *Replay) (<-chan played, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	raw := make(chan observe.Observation)
	got := make(chan played, 1000)
	start := time.Now()
	go func() {
		if err := r.Run(ctx, raw); err != nil {
			t.Errorf("Run: %v", err)
		}
		close(raw)
	}()
	go func() {
		for {
			from := time.Since(start)
			o, ok := <-raw
			if !ok {
				break
			}
			got <- played{o, time.Since(start), from}
		}
		close(got)
	}()
	t.Cleanup(cancel)
	return got, cancel
}

// next waits for the next played observation. within says when it is
// expected; a loaded machine gets at least 30 s, which costs nothing when
// it comes (what a replay must not play early is nothing's business).
func next(t *testing.T, ch <-chan played, within time.Duration) played {
	t.Helper()
	within = max(within, 30*time.Second)
	select {
	case p, ok := <-ch:
		if !ok {
			t.Fatal("replay ended early")
		}
		return p
	case <-time.After(within):
		t.Fatalf("nothing within %v", within)
	}
	return played{}
}

func nothing(t *testing.T, ch <-chan played, during time.Duration) {
	t.Helper()
	select {
	case p, ok := <-ch:
		if ok {
			t.Fatalf("got %+v, want nothing for %v", p.obs, during)
		}
	case <-time.After(during):
	}
}

func fileName(p played) string {
	if p.obs.File == nil {
		return ""
	}
	return p.obs.File.Path
}

func TestReplayInstantOrderAndSynced(t *testing.T) {
	tr := timedTrace(true, 0, time.Hour, 2*time.Hour)
	r := ReplaySource(tr, ReplayOptions{Speed: Instant})
	ch, _ := play(t, r)
	var seq []string
	for p := range ch {
		switch {
		case p.obs.File != nil:
			seq = append(seq, p.obs.File.Path)
		case p.obs.Synced != nil:
			seq = append(seq, "synced:"+p.obs.Synced.Source)
		}
	}
	want := "[f0 synced:files synced:replay f1 f2]"
	if fmt.Sprint(seq) != want {
		t.Fatalf("sent %v, want %s", seq, want)
	}
	p := r.Progress()
	if !p.Done || p.Pos != 4 || p.Total != 4 || p.At != 2*time.Hour || p.Length != 2*time.Hour {
		t.Fatalf("progress %+v", p)
	}
}

func TestReplayWithoutSyncedRecordsIsReadyAtOnce(t *testing.T) {
	r := ReplaySource(timedTrace(false, 0, time.Hour), ReplayOptions{Speed: 1})
	ch, _ := play(t, r)
	if p := next(t, ch, time.Second); p.obs.Synced == nil || p.obs.Synced.Source != SourceName {
		t.Fatalf("first = %+v", p.obs)
	}
	if p := next(t, ch, time.Second); fileName(p) != "f0" {
		t.Fatalf("second = %+v", p.obs)
	}
	nothing(t, ch, 100*time.Millisecond) // f1 is an hour away
}

// A record plays no earlier than its recorded offset divided by the
// speed. That it is not much later is not asserted (a loaded machine
// runs timers late): at 1000x the records are a minute apart, so a
// replay that ignored the speed would miss next's 30 s.
func TestReplayKeepsTimingScaledBySpeed(t *testing.T) {
	for _, tc := range []struct {
		speed float64
		step  time.Duration
	}{{1, 300 * time.Millisecond}, {1000, time.Minute}} {
		t.Run(fmt.Sprint(tc.speed), func(t *testing.T) {
			offsets := []time.Duration{0, tc.step, 2 * tc.step}
			ch, _ := play(t, ReplaySource(timedTrace(false, offsets...), ReplayOptions{Speed: tc.speed}))
			next(t, ch, time.Second) // synced
			first := next(t, ch, time.Second)
			for i := 1; i < len(offsets); i++ {
				p := next(t, ch, 2*time.Second)
				got := p.at - first.from
				want := time.Duration(float64(offsets[i]) / tc.speed)
				if got < want-5*time.Millisecond {
					t.Fatalf("record %d after %v, want %v or later", i, got, want)
				}
			}
		})
	}
}

func TestReplayMaxGapShortensPauses(t *testing.T) {
	ch, _ := play(t, ReplaySource(timedTrace(false, 0, time.Hour, time.Hour+10*time.Millisecond), ReplayOptions{Speed: 1, MaxGap: 20 * time.Millisecond}))
	next(t, ch, time.Second)
	first := next(t, ch, time.Second)
	p := next(t, ch, time.Second)
	if fileName(p) != "f1" || p.at-first.from < 15*time.Millisecond {
		t.Fatalf("f1 after %v", p.at-first.from)
	}
	next(t, ch, time.Second)
}

func TestReplayPauseAndResume(t *testing.T) {
	// f1 is an hour away, so the pause comes while the replay waits for
	// it: a record whose time had already come when the pause came is
	// still delivered (the pause stops the waiting, not a send under
	// way), and a test that paused 50 ms before f1 would race a loaded
	// machine's scheduler.
	r := ReplaySource(timedTrace(false, 0, time.Hour, time.Hour+50*time.Millisecond), ReplayOptions{Speed: 1})
	ch, _ := play(t, r)
	next(t, ch, time.Second)
	next(t, ch, time.Second) // f0
	r.TogglePause()
	if !r.Progress().Paused {
		t.Fatal("not paused")
	}
	nothing(t, ch, 300*time.Millisecond)
	// Paused at Instant speed still waits, though every record is due.
	r.SetSpeed(Instant)
	nothing(t, ch, 100*time.Millisecond)
	r.TogglePause()
	if fileName(next(t, ch, time.Second)) != "f1" || fileName(next(t, ch, time.Second)) != "f2" {
		t.Fatal("wrong order after resume")
	}
}

func TestReplaySpeedChangeMidWait(t *testing.T) {
	// f1 is ten minutes away: at 1000x 0.6 s, at the old speed far past
	// next's 30 s, so a speed change that did not wake the pending wait
	// fails.
	r := ReplaySource(timedTrace(false, 0, 10*time.Minute), ReplayOptions{Speed: 1})
	ch, _ := play(t, r)
	next(t, ch, time.Second)
	next(t, ch, time.Second)
	time.Sleep(50 * time.Millisecond)
	r.SetSpeed(1000) // 10 min at 1000x: 0.6 s, less the 50 ms already played
	p := next(t, ch, time.Second)
	if fileName(p) != "f1" {
		t.Fatalf("got %+v", p.obs)
	}
	r.SetSpeed(-3) // ignored
	if s := r.Progress().Speed; s != 1000 {
		t.Fatalf("speed %v", s)
	}
}

// "Jump to the next step's change": a fast-forward stops at each mark,
// even while paused, and otherwise runs to the end.
func TestReplayFastForwardStopsAtMarks(t *testing.T) {
	var offsets []time.Duration
	for i := 0; i < 10; i++ {
		offsets = append(offsets, time.Duration(i)*time.Hour)
	}
	r := ReplaySource(timedTrace(false, offsets...), ReplayOptions{Speed: 1, Marks: []int{7, 3}})
	ch, _ := play(t, r)
	next(t, ch, time.Second) // synced
	next(t, ch, time.Second) // f0
	r.TogglePause()
	r.FastForward()
	for _, want := range []string{"f1", "f2"} {
		if got := fileName(next(t, ch, time.Second)); got != want {
			t.Fatalf("got %s want %s", got, want)
		}
	}
	// The replay counts a record after handing it over: it has stopped
	// at the mark once its progress says so.
	stopped(t, r)
	nothing(t, ch, 100*time.Millisecond)
	if p := r.Progress(); p.Pos != 3 || p.FastForward || !p.Paused {
		t.Fatalf("progress after the first mark: %+v", p)
	}
	r.FastForward()
	for i := 3; i < 7; i++ {
		next(t, ch, time.Second)
	}
	stopped(t, r)
	nothing(t, ch, 100*time.Millisecond)
	if p := r.Progress(); p.Pos != 7 {
		t.Fatalf("progress after the second mark: %+v", p)
	}
	r.FastForward() // no mark left: to the end
	for i := 7; i < 10; i++ {
		next(t, ch, time.Second)
	}
	if _, open := <-ch; open {
		t.Fatal("replay did not end")
	}
	if p := r.Progress(); !p.Done || p.FastForward {
		t.Fatalf("progress at the end: %+v", p)
	}
}

// stopped waits until r's fast-forward has ended.
func stopped(t *testing.T, r *Replay) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return !r.Progress().FastForward, nil
	}); err != nil {
		t.Fatalf("want the fast-forward stopped at a mark, still fast-forwarding after 30 s: %+v", r.Progress())
	}
}

func TestReplayStopFastForward(t *testing.T) {
	var offsets []time.Duration
	for i := 0; i < 500; i++ {
		offsets = append(offsets, time.Duration(i)*time.Minute)
	}
	r := ReplaySource(timedTrace(false, offsets...), ReplayOptions{Speed: 1})
	ch, _ := play(t, r)
	next(t, ch, time.Second)
	next(t, ch, time.Second)
	r.FastForward()
	next(t, ch, time.Second)
	r.StopFastForward()
	pos := r.Progress().Pos
	time.Sleep(100 * time.Millisecond)
	if p := r.Progress(); p.FastForward || p.Pos > pos+1 || p.Done {
		t.Fatalf("still going: %+v (was at %d)", p, pos)
	}
}

func TestReplayUpdatesAndCancel(t *testing.T) {
	r := ReplaySource(timedTrace(false, 0, time.Hour), ReplayOptions{Speed: 1})
	ch, cancel := play(t, r)
	next(t, ch, time.Second)
	next(t, ch, time.Second)
	select {
	case <-r.Updates():
	case <-time.After(30 * time.Second):
		t.Fatal("no update after a record")
	}
	r.SetSpeed(10)
	select {
	case <-r.Updates():
	case <-time.After(30 * time.Second):
		t.Fatal("no update after a speed change")
	}
	cancel()
	for range ch {
	}
	if err := r.Run(context.Background(), make(chan observe.Observation)); err == nil {
		t.Fatal("a second Run should fail")
	}
}

func TestReplayCycleSpeedAndStatus(t *testing.T) {
	r := ReplaySource(timedTrace(false, 0, time.Hour), ReplayOptions{Speed: 2.5})
	var seen []float64
	for i := 0; i < 4; i++ {
		r.CycleSpeed()
		seen = append(seen, r.Progress().Speed)
	}
	if fmt.Sprint(seen) != "[1 10 0 1]" {
		t.Fatalf("speeds %v", seen)
	}
	st := r.Status()
	for _, want := range []string{"mem", "0/2", "1:00:00", SpeedLabel(1)} {
		if !strings.Contains(st, want) {
			t.Errorf("status %q lacks %q", st, want)
		}
	}
	if strings.ContainsAny(st, "·→…") {
		t.Errorf("status %q has East-Asian-ambiguous glyphs", st)
	}
	r.TogglePause()
	if paused := r.Status(); paused == st {
		t.Errorf("status does not show the pause: %q", paused)
	}
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0:00", 59499 * time.Millisecond: "0:59", 61 * time.Second: "1:01", 3723 * time.Second: "1:02:03"} {
		if got := Clock(d); got != want {
			t.Errorf("Clock(%v) = %s, want %s", d, got, want)
		}
	}
}
