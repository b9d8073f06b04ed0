package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
)

// fakeHands is a class's hand as the TUI sees it: a step-1 hand.
type fakeHands struct {
	hand *class.Hand
	acks chan class.Ack
}

func (f *fakeHands) RaiseHand(note string) {
	f.hand = &class.Hand{Step: 1, Raised: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC), Note: class.Clip(note, class.MaxNoteRunes)}
}
func (f *fakeHands) LowerHand()             { f.hand = nil }
func (f *fakeHands) Hand() *class.Hand      { return f.hand }
func (f *fakeHands) Acks() <-chan class.Ack { return f.acks }

// The hand key opens a note that takes every letter (q too) and shows
// what was typed cleaned; enter raises the hand, the strip says so, the
// instructor's acknowledgement is said in the footer and the strip, and
// the key lowers it again. At 60 columns everything fits.
func TestRaiseAHandWithANote(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	hands := &fakeHands{acks: make(chan class.Ack)}
	m := New(Options{Lab: lab, Theme: "dark", Colors: ColorsNone, Class: make(chan learner.Status), Hands: hands})
	m = send(t, m, sizeMsg(60, 24))
	m = send(t, m, classMsg{learner.Status{State: learner.Connected}})
	if !m.keys.Hand.Enabled() {
		t.Fatal("the hand key is off in a class")
	}
	m = press(t, m, "a")
	if !strings.Contains(screen(m), "손 들기 메모") {
		t.Fatalf("no note prompt:\n%s", screen(m))
	}
	m = press(t, m, "q", "?", "x")
	m = send(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("\x1b]2;pwn\x07"), Paste: true})
	if v := m.View(); strings.Contains(v, "\x1b]2;") || !strings.Contains(screen(m), "q?x") {
		t.Fatalf("the note being typed: %q", screen(m))
	}
	checkFits(t, m)
	m = send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if hands.hand == nil || !strings.HasPrefix(hands.hand.Note, "q?x") {
		t.Fatalf("hand after enter: %+v", hands.hand)
	}
	if h := m.header(); !strings.Contains(h, content.Msg("class.indicator.hand_up")) {
		t.Errorf("strip with the hand up: %q", h)
	}
	checkFits(t, m)

	hands.hand.Acked = hands.hand.Raised.Add(time.Minute) // what the publisher keeps
	m = send(t, m, ackMsg{class.Ack{Step: 1, Raised: hands.hand.Raised, At: hands.hand.Acked}})
	if v := screen(m); !strings.Contains(v, "강사가 손 든 것을 확인했습니다") {
		t.Errorf("no word of the acknowledgement in the footer:\n%s", v)
	}
	if h := m.header(); !strings.Contains(h, content.Msg("class.indicator.hand_acked")) {
		t.Errorf("strip after the acknowledgement: %q", h)
	}
	checkFits(t, m)

	m = press(t, m, "a")
	if hands.hand != nil || !strings.Contains(screen(m), "손을 내렸습니다") {
		t.Errorf("the key did not lower the hand: %+v\n%s", hands.hand, screen(m))
	}
	// Esc leaves a note without raising anything.
	m = press(t, m, "a", "x", "esc")
	if hands.hand != nil || m.noting() {
		t.Errorf("esc raised a hand (%+v) or kept the note open (%v)", hands.hand, m.noting())
	}
}

// Without a class there is no hand key.
func TestNoHandWithoutAClass(t *testing.T) {
	m := testModel(t, 80, 24)
	if m.keys.Hand.Enabled() {
		t.Error("the hand key is on without --class")
	}
}
