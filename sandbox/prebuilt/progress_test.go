package prebuilt

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/content"
)

// On a terminal the line updates in place (carriage return, erase to the
// end) with bytes, rate and time left in Korean words, at most once per
// interval; the file's end is a whole line. The clock is the test's.
func TestMeterOnATerminal(t *testing.T) {
	now := time.Unix(0, 0)
	var out bytes.Buffer
	m := &meter{out: &out, terminal: true, now: func() time.Time { return now }, interval: 200 * time.Millisecond}
	m.Start("kube-apiserver", 100<<20, 0, "http://mirror/kube-apiserver")
	if out.Len() != 0 {
		t.Errorf("Start drew %q on a terminal", out.String())
	}
	now = now.Add(2 * time.Second)
	m.Write(make([]byte, 20<<20)) // 20 MiB in 2 s: 10 MiB/s, 80 MiB left: 8 s
	now = now.Add(100 * time.Millisecond)
	m.Write(make([]byte, 1<<20)) // within the interval: not drawn
	want := "\r" + content.Msg("prebuilt.progress.line", "file", "kube-apiserver", "done", "20.0 MiB", "total", "100.0 MiB",
		"rate", "10.0 MiB", "left", content.Duration(8*time.Second)) + "\x1b[K"
	if out.String() != want {
		t.Errorf("drawn %q, want %q", out.String(), want)
	}
	if !strings.Contains(want, "8초") {
		t.Errorf("time left is not in Korean words: %q", want)
	}
	m.Note("prebuilt.progress.resume", "file", "kube-apiserver", "done", "21.0 MiB", "err", "EOF")
	if !strings.Contains(out.String(), "\x1b[K\n") {
		t.Errorf("a note did not end the updating line first: %q", out.String())
	}
	out.Reset()
	m.Done("prebuilt.progress.done", 100<<20, 9*time.Second, "")
	if got := out.String(); !strings.HasPrefix(got, "\r\x1b[K") || !strings.HasSuffix(got, "\n") || !strings.Contains(got, "9초") {
		t.Errorf("Done wrote %q", got)
	}
	if regexp.MustCompile(`\d+(ms|s|m)\b`).MatchString(out.String()) {
		t.Errorf("a Go duration reached the user: %q", out.String())
	}
}

// Elsewhere (a pipe, a log) a file is two plain lines, no carriage return.
func TestMeterPlain(t *testing.T) {
	now := time.Unix(0, 0)
	var out bytes.Buffer
	m := &meter{out: &out, now: func() time.Time { return now }, interval: time.Millisecond}
	m.Start("kubectl", 50<<20, 0, "http://mirror/kubectl")
	for range 50 {
		now = now.Add(time.Second)
		m.Write(make([]byte, 1<<20))
	}
	m.Done("prebuilt.progress.done", 50<<20, 50*time.Second, "")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || strings.Contains(out.String(), "\r") {
		t.Fatalf("plain progress %q, want two lines", out.String())
	}
	if !strings.Contains(lines[0], "50.0 MiB") || !strings.Contains(lines[0], "http://mirror/kubectl") || !strings.Contains(lines[1], "50초") {
		t.Errorf("lines %q", lines)
	}
}
