package plain

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/internal/fixture"
)

// hands is a class's hand as plain mode sees it: a step-1 hand, kept
// under a lock (plain mode's loop and the test both look at it).
type hands struct {
	mu   sync.Mutex
	hand *class.Hand
	note string // the note as raised, before the tracker would clip it
	acks chan class.Ack
}

func (h *hands) RaiseHand(note string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.note = note
	h.hand = &class.Hand{Step: 1, Raised: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC), Note: class.Clip(note, class.MaxNoteRunes)}
}

func (h *hands) LowerHand() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hand = nil
}

func (h *hands) Hand() *class.Hand {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hand
}

func (h *hands) Acks() <-chan class.Ack { return h.acks }

// In a class, hand (a, 손) raises a hand with the rest of the line as its
// note, the instructor's acknowledgement of that hand is said, one of
// another hand is not, and hand again lowers it.
func TestPlainRaisesAHand(t *testing.T) {
	h := &hands{acks: make(chan class.Ack)}
	out, typed, done := start(tui.Options{Lab: fixture.Lab(), Root: fixture.Root, Hands: h})
	say := func(l string) { io.WriteString(typed, l+"\n") }
	out.waitFor(t, "평문 모드")
	say("help")
	out.waitFor(t, "hand (a, 손, 손들기): hand 메모: 손을 들어")
	say("손  2단계에서 막혔어요 ")
	out.waitFor(t, "손을 들었습니다.")
	if got := h.Hand(); got == nil || h.note != "2단계에서 막혔어요" {
		t.Fatalf("hand %+v, note %q", got, h.note)
	}
	raised := h.Hand().Raised
	h.acks <- class.Ack{Step: 1, Raised: raised.Add(-time.Minute)} // an earlier hand's
	h.acks <- class.Ack{Step: 1, Raised: raised}
	out.waitFor(t, "강사가 손 든 것을 확인했습니다.")
	say("a")
	out.waitFor(t, "손을 내렸습니다.")
	if h.Hand() != nil {
		t.Error("the hand is still up")
	}
	say("quit")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "확인했습니다"); n != 1 {
		t.Errorf("acknowledged %d times, want once (the earlier hand's is not this one's):\n%s", n, out.String())
	}
}

// Without a class there is no hand: help does not offer it, and typed
// anyway it says why.
func TestPlainHandNeedsAClass(t *testing.T) {
	out, typed, done := start(tui.Options{Lab: fixture.Lab(), Root: fixture.Root})
	out.waitFor(t, "평문 모드")
	io.WriteString(typed, "help\n")
	out.waitFor(t, "quit (")
	io.WriteString(typed, "hand\n")
	out.waitFor(t, "--class")
	io.WriteString(typed, "quit\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "hand (a") {
		t.Errorf("help offers a hand without a class:\n%s", out.String())
	}
}
