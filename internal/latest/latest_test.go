package latest

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestSendReplacesTheUnreadValue(t *testing.T) {
	ch := make(chan int, 1)
	Offer(ch, 1)
	Offer(ch, 2)
	Offer(ch, 3)
	if got := <-ch; got != 3 {
		t.Fatalf("reader got %d, want the newest, 3", got)
	}
	select {
	case v := <-ch:
		t.Fatalf("a backlog: %d still queued", v)
	default:
	}
}

func TestMergeFoldsWhatTheReaderMissed(t *testing.T) {
	ch := make(chan []int, 1)
	send := func(v int) {
		Merge(context.Background(), ch, []int{v}, func(unread []int) []int { return append(unread, v) })
	}
	send(1)
	send(2)
	if got := <-ch; len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("got %v, want [1 2]: the unread 1 folded into 2", got)
	}
	send(3)
	if got := <-ch; len(got) != 1 || got[0] != 3 {
		t.Fatalf("got %v, want [3]: the reader took everything before", got)
	}
}

// Two writers racing on one slot: every Send returns and the reader ends
// with one of the values, never blocked for ever.
func TestSendWithManyWritersEnds(t *testing.T) {
	ch := make(chan int, 1)
	// The deadline frees a writer that would block for ever; the writers
	// must be done long before it (30 s, for a loaded machine).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				Send(ctx, ch, w*1000+i)
			}
		}(w)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case <-ch:
		case <-done:
			if ctx.Err() != nil {
				t.Fatal("a writer waited until the deadline")
			}
			return
		}
	}
}
