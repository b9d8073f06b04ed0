package syncio

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// Writes from many goroutines at once each arrive whole, through Writer
// and into Buffer; under the race detector (a race package of
// scripts/test.sh) they are synchronized.
func TestWritesFromGoroutinesArriveWhole(t *testing.T) {
	var into bytes.Buffer
	w := &Writer{W: &into}
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = w.Write([]byte("abcdefgh\n"))
				_, _ = b.Write([]byte("abcdefgh\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	for name, got := range map[string]string{"Writer": into.String(), "Buffer": b.String()} {
		if want := strings.Repeat("abcdefgh\n", 800); got != want {
			t.Errorf("%s: %d bytes, not 800 whole lines", name, len(got))
		}
	}
}
