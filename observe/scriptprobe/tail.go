package scriptprobe

import (
	"strings"
	"unicode/utf8"
)

// tail keeps the last n bytes written to it in a fixed ring, so a script
// printing megabytes costs no more memory than a quiet one.
type tail struct {
	buf   []byte
	next  int
	full  bool
	total int64
}

func newTail(n int) *tail { return &tail{buf: make([]byte, n)} }

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	t.total += int64(n)
	if len(p) >= len(t.buf) {
		copy(t.buf, p[len(p)-len(t.buf):])
		t.next, t.full = 0, true
		return n, nil
	}
	c := copy(t.buf[t.next:], p)
	if c < len(p) {
		copy(t.buf, p[c:])
		t.full = true
	}
	t.next = (t.next + len(p)) % len(t.buf)
	if t.next == 0 && len(p) > 0 {
		t.full = true
	}
	return n, nil
}

// String returns the kept tail as valid UTF-8 and whether anything was
// dropped before it.
func (t *tail) String() (string, bool) {
	var b []byte
	if t.full {
		b = append(append(b, t.buf[t.next:]...), t.buf[:t.next]...)
	} else {
		b = append(b, t.buf[:t.next]...)
	}
	truncated := t.total > int64(len(b))
	if truncated {
		// Do not start in the middle of a character.
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), truncated
}
