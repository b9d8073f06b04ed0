package tui

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
)

// The class indicator ends the step strip with --class, follows the
// publisher's status, and is absent without --class.
func TestClassIndicator(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Lab: lab, Theme: "dark", Colors: ColorsNone})
	m = send(t, m, sizeMsg(80, 24))
	if strings.Contains(m.header(), "교실") {
		t.Fatalf("indicator without --class: %q", m.header())
	}
	ch := make(chan class.Status, 1)
	m = New(Options{Lab: lab, Theme: "dark", Colors: ColorsNone, Class: ch})
	m = send(t, m, sizeMsg(80, 24))
	if !strings.Contains(m.header(), content.Msg("class.indicator.connecting")) {
		t.Fatalf("header before any send: %q", m.header())
	}
	for _, st := range []class.State{class.Retrying, class.Refused, class.Connected} {
		m = send(t, m, classMsg{class.Status{State: st}})
		if h := m.header(); !strings.Contains(h, content.Msg("class.indicator."+string(st))) {
			t.Fatalf("header for %s: %q", st, h)
		}
		checkFits(t, m)
	}
	// At 60 columns the strip still fits (the indicator drops if it must).
	m = send(t, m, sizeMsg(60, 20))
	checkFits(t, m)
}
