// Command benchwatch measures what a learner sees of a save, through the
// real binary: how long until a `labmate check --watch --json` line shows
// step 3 passed (or failed) after out/merge.txt is written, the same
// writes seen by a 1 s loop of `labmate check --step 3` (what
// Killercoda- and iximiuz-style checkers do), and how many red lines a
// right file rewritten in two chunks 5 ms apart produces. scripts/bench.sh
// runs it; the numbers go to README's Measured table.
//
//	go run ./scripts/benchwatch -bin /tmp/labmate [-rounds 100] [-poller 20] [-poll]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

const rel = "out/merge.txt"

func main() {
	bin := flag.String("bin", "", "the labmate binary")
	rounds := flag.Int("rounds", 100, "right/wrong saves timed against the watch line")
	pollerRounds := flag.Int("poller", 20, "saves timed against the 1 s check loop too")
	halves := flag.Int("halves", 20, "two-chunk rewrites of a right file")
	poll := flag.Bool("poll", false, "run the watcher with --poll")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "benchwatch: -bin is required")
		os.Exit(2)
	}
	if err := run(*bin, *rounds, *pollerRounds, *halves, *poll); err != nil {
		fmt.Fprintln(os.Stderr, "benchwatch:", err)
		os.Exit(1)
	}
}

// watcher is a running `check --watch --json --step 3`: every line's
// step 3 status with the time it was read.
type watcher struct {
	mu    sync.Mutex
	cond  *sync.Cond
	lines []line
}

type line struct {
	at     time.Time
	status string
}

func (w *watcher) read(sc *bufio.Scanner) {
	for sc.Scan() {
		at := time.Now()
		var rec struct {
			Steps []struct {
				Number int    `json:"number"`
				Status string `json:"status"`
			} `json:"steps"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || len(rec.Steps) != 1 {
			continue
		}
		w.mu.Lock()
		w.lines = append(w.lines, line{at, rec.Steps[0].Status})
		w.cond.Broadcast()
		w.mu.Unlock()
	}
}

// await returns when a line after index from shows status, and its time.
func (w *watcher) await(from int, status string, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for _, l := range w.lines[min(from, len(w.lines)):] {
			if l.status == status {
				return l.at, nil
			}
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("no watch line showed %s", status)
		}
		w.mu.Unlock()
		time.Sleep(time.Millisecond) // only the benchmark's own wait
		w.mu.Lock()
	}
}

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.lines)
}

func run(bin string, rounds, pollerRounds, halves int, poll bool) error {
	root, err := os.MkdirTemp("", "labmate-bench-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	right, wrong, err := layOut(root)
	if err != nil {
		return err
	}
	target := filepath.Join(root, rel)
	stateDir, _ := os.MkdirTemp("", "labmate-bench-state-*")
	defer os.RemoveAll(stateDir)
	common := []string{"--lab", "gpu-incident", "--root", root, "--no-cluster", "--state-dir", stateDir, "--step", "3"}

	args := append([]string{"check", "--watch", "--json"}, common...)
	if poll {
		args = append(args, "--poll")
	}
	w, stop, err := startWatcher(bin, args)
	if err != nil {
		return err
	}
	defer stop()
	if _, err := w.await(0, "passed", 20*time.Second); err != nil {
		return err
	}

	// save writes the file in place (truncate, then write), as most
	// editors and `cat >` do, and times the watch line showing want.
	save := func(body []byte, want string) (time.Duration, error) {
		from := w.count()
		start := time.Now()
		if err := os.WriteFile(target, body, 0o644); err != nil {
			return 0, err
		}
		at, err := w.await(from, want, 10*time.Second)
		return at.Sub(start), err
	}
	if err := timeSaves(save, right, wrong, rounds, poll); err != nil {
		return err
	}
	if pollerRounds > 0 {
		if err := compare(bin, common, save, right, wrong, pollerRounds); err != nil {
			return err
		}
	}
	return halfWrites(w, target, right, halves)
}

// layOut copies the lab's reference files for step 3 under root and
// returns the right content of out/merge.txt and a wrong one.
func layOut(root string) (right, wrong []byte, err error) {
	ref := filepath.Join("content", "labs", "gpu-incident", "reference")
	for _, f := range []string{"etc/containerd/config.toml", "etc/containerd/conf.d/99-nvidia.toml", rel} {
		b, err := os.ReadFile(filepath.Join(ref, f))
		if err != nil {
			return nil, nil, err
		}
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(root, f), b, 0o644); err != nil {
			return nil, nil, err
		}
	}
	right, _ = os.ReadFile(filepath.Join(ref, rel))
	wrong = []byte(strings.Replace(string(right), "LOADED_RUNTIMES=runc", "LOADED_RUNTIMES=nvidia,runc", 1))
	return right, wrong, nil
}

// startWatcher runs bin with args (a `check --watch --json`) and reads
// its lines; stop ends it.
func startWatcher(bin string, args []string) (w *watcher, stop func(), err error) {
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	w = &watcher{}
	w.cond = sync.NewCond(&w.mu)
	go w.read(bufio.NewScanner(out))
	return w, func() { cmd.Process.Kill(); cmd.Wait() }, nil
}

// timeSaves times rounds of a wrong then a right save against the watch
// line and reports both.
func timeSaves(save func([]byte, string) (time.Duration, error), right, wrong []byte, rounds int, poll bool) error {
	var good, bad []time.Duration
	for i := 0; i < rounds; i++ {
		d, err := save(wrong, "failed")
		if err != nil {
			return err
		}
		bad = append(bad, d)
		if d, err = save(right, "passed"); err != nil {
			return err
		}
		good = append(good, d)
		time.Sleep(20 * time.Millisecond)
	}
	mode := "file events"
	if poll {
		mode = "--poll"
	}
	report("saved right -> watch line passed ("+mode+")", good)
	report("saved wrong -> watch line failed ("+mode+")", bad)
	return nil
}

// compare times the same saves through the watch line and a 1 s loop of
// `labmate check --step 3`.
func compare(bin string, common []string, save func([]byte, string) (time.Duration, error), right, wrong []byte, pollerRounds int) error {
	// The same writes seen by a 1 s check loop.
	type seen struct {
		at     time.Time
		passed bool
	}
	pollerC := make(chan seen, 64)
	stop := make(chan struct{})
	go func() {
		for {
			c := exec.Command(bin, append([]string{"check"}, common...)...)
			err := c.Run()
			pollerC <- seen{time.Now(), err == nil}
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	defer close(stop)
	// Each round breaks the file (untimed, until both saw it) and then
	// saves it right: the change timed is the one that turns it green.
	var lm, pl []time.Duration
	awaitPoller := func(start time.Time, passed bool) time.Duration {
		for s := range pollerC {
			if s.passed == passed && s.at.After(start) {
				return s.at.Sub(start)
			}
		}
		return 0
	}
	for i := 0; i < pollerRounds; i++ {
		start := time.Now()
		if _, err := save(wrong, "failed"); err != nil {
			return err
		}
		awaitPoller(start, false)
		// Let the loop's phase drift against the writes.
		time.Sleep(time.Duration(137*i%1000) * time.Millisecond)
		for len(pollerC) > 0 {
			<-pollerC
		}
		start = time.Now()
		d, err := save(right, "passed")
		if err != nil {
			return err
		}
		lm = append(lm, d)
		pl = append(pl, awaitPoller(start, true))
	}
	report("saved right -> watch line passed (same writes)", lm)
	report("1 s loop of `labmate check --step 3`", pl)
	fmt.Printf("ratio poller/labmate (p50): %.0fx\n", float64(median(pl))/float64(median(lm)))
	return nil
}

// halfWrites rewrites a right file in two chunks 5 ms apart and counts the
// watch lines that show the step not passed.
func halfWrites(w *watcher, target string, right []byte, halves int) error {

	// A right file rewritten in two chunks 5 ms apart.
	from := w.count()
	for i := 0; i < halves; i++ {
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		f.Write(right[:len(right)/2])
		time.Sleep(5 * time.Millisecond)
		f.Write(right[len(right)/2:])
		f.Close()
		time.Sleep(100 * time.Millisecond)
	}
	w.mu.Lock()
	red := 0
	for _, l := range w.lines[from:] {
		if l.status != "passed" {
			red++
		}
	}
	w.mu.Unlock()
	fmt.Printf("two-chunk rewrites of a right file: %d, watch lines showing step 3 not passed: %d\n", halves, red)
	return nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func report(what string, d []time.Duration) {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	fmt.Printf("%-48s n=%d p50 %.1f ms  p99 %.1f ms\n", what, len(s), ms(s[len(s)/2]), ms(s[(len(s)*99)/100]))
}
