// Package syncio is the one writer goroutines share: Writer serializes
// writes to another writer (progress lines from several workers),
// Buffer keeps what they write for a reader (a script's output, written
// by a pipeline's commands at once).
package syncio

import (
	"bytes"
	"io"
	"sync"
)

// Writer serializes writes to W: each Write reaches W whole.
type Writer struct {
	mu sync.Mutex
	W  io.Writer
}

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.W.Write(p)
}

// Buffer is a buffer goroutines write to and read at once.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
