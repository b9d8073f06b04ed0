package prebuilt

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/labhub/labmate/content"
)

// meter shows one file's download: on a terminal one line that updates
// in place (bytes, rate, time left), at most every interval; elsewhere
// (a log, a pipe, CI) a line when the file starts and one when it is
// done, so that a log holds no carriage returns. It is written to by the
// download (Write counts bytes) and told by Start and Done where a file
// begins and ends. Its clock is given, so a test decides what the rate
// and the time left are.
type meter struct {
	out      io.Writer
	terminal bool
	now      func() time.Time
	interval time.Duration

	mu        sync.Mutex
	file      string
	total     int64 // -1 when unknown
	done      int64
	base      int64 // bytes already there when this attempt started (a resumed download)
	start     time.Time
	lastDraw  time.Time
	drawnLine bool // a terminal line is on screen and not yet ended
}

// isTerminal reports whether w is a terminal (the updating line needs one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Start begins a file (or an attempt at it, resumed from have bytes).
func (m *meter) Start(file string, total, have int64, url string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	first := m.file != file
	m.file, m.total, m.done, m.base = file, total, have, have
	m.start = m.now()
	m.lastDraw = time.Time{}
	if !first {
		return
	}
	size := "?"
	if total >= 0 {
		size = mib(total)
	}
	if !m.terminal {
		fmt.Fprintln(m.out, content.Msg("prebuilt.progress.start", "file", file, "size", size, "url", url))
	}
}

// Write counts downloaded bytes and redraws the line when it is due.
func (m *meter) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done += int64(len(p))
	if m.terminal {
		if now := m.now(); now.Sub(m.lastDraw) >= m.interval {
			m.lastDraw = now
			m.draw(now)
		}
	}
	return len(p), nil
}

// draw writes the updating line: carriage return, the text, erase to
// the end of the line.
func (m *meter) draw(now time.Time) {
	fmt.Fprint(m.out, "\r"+m.line(now)+"\x1b[K")
	m.drawnLine = true
}

// line is the updating line's text (prebuilt.progress.line): the file,
// bytes so far and in all, the rate, the time left.
func (m *meter) line(now time.Time) string {
	elapsed := now.Sub(m.start)
	got := m.done - m.base
	rate := "…"
	left := "…"
	if elapsed > 0 && got > 0 {
		perSec := float64(got) / elapsed.Seconds()
		rate = mib(int64(perSec))
		if m.total >= 0 {
			left = content.Duration(time.Duration(float64(m.total-m.done) / perSec * float64(time.Second)).Round(100 * time.Millisecond))
		}
	}
	total := "?"
	if m.total >= 0 {
		total = mib(m.total)
	}
	return content.Msg("prebuilt.progress.line", "file", m.file, "done", mib(m.done), "total", total, "rate", rate, "left", left)
}

// Note writes a whole line (a retry, a resume), ending the updating
// line first so the two do not mix.
func (m *meter) Note(key string, kv ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.endLine()
	fmt.Fprintln(m.out, content.Msg(key, kv...))
}

// Done ends a file: its size, how long it took, and (key) what its
// sha256 was checked against (checked, prebuilt.progress.done) or that
// it is checked later, file by file (prebuilt.progress.fetched: a bundle).
func (m *meter) Done(key string, size int64, took time.Duration, checked string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.terminal {
		fmt.Fprint(m.out, "\r\x1b[K")
		m.drawnLine = false
	}
	fmt.Fprintln(m.out, content.Msg(key, "file", m.file, "size", mib(size), "elapsed", took, "checked", checked))
	m.file = ""
}

// endLine moves past a drawn updating line.
func (m *meter) endLine() {
	if m.drawnLine {
		fmt.Fprintln(m.out)
		m.drawnLine = false
	}
}
