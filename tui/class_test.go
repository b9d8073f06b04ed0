package tui

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
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
	ch := make(chan learner.Status, 1)
	m = New(Options{Lab: lab, Theme: "dark", Colors: ColorsNone, Class: ch})
	m = send(t, m, sizeMsg(80, 24))
	if !strings.Contains(m.header(), content.Msg("class.indicator.connecting")) {
		t.Fatalf("header before any send: %q", m.header())
	}
	for _, st := range []learner.State{learner.Retrying, learner.Refused, learner.Connected} {
		m = send(t, m, classMsg{learner.Status{State: st}})
		if h := m.header(); !strings.Contains(h, content.Msg("class.indicator."+string(st))) {
			t.Fatalf("header for %s: %q", st, h)
		}
		checkFits(t, m)
	}
	// At 60 columns the strip still fits (the indicator drops if it must).
	m = send(t, m, sizeMsg(60, 20))
	checkFits(t, m)
}

// A new version of the class's lab is said in the step strip, whole at
// 60 columns, next to the class indicator, and once as a toast; a
// refused one is said as refused, its reason in the toast.
func TestClassLabNote(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	notes := make(chan classlab.LabNote, 1)
	m := New(Options{Lab: lab, Theme: "dark", Colors: ColorsNone, Class: make(chan learner.Status), ClassLab: notes})
	m = send(t, m, sizeMsg(60, 20))
	if h := m.header(); strings.Contains(h, "실습") {
		t.Fatalf("a class lab note before any: %q", h)
	}
	m = send(t, m, classMsg{learner.Status{State: learner.Connected}})
	m = send(t, m, classLabMsg{classlab.LabNote{Version: "1.1.0"}})
	want := content.Msg("class.indicator.lab_new", "version", "1.1.0")
	if h := m.header(); !strings.Contains(h, want) {
		t.Fatalf("header at 60 columns %q, want %q whole", h, want)
	}
	checkFits(t, m)
	if v := m.View(); !strings.Contains(v, "1.1.0") || !strings.Contains(v, "새 판이 열립니다") {
		t.Errorf("no toast for the new version:\n%s", v)
	}
	m = send(t, m, classLabMsg{classlab.LabNote{Refused: true, Why: "교실의 실습 묶음이 손상되었거나 바뀌었습니다"}})
	if h := m.header(); !strings.Contains(h, content.Msg("class.indicator.lab_refused")) || strings.Contains(h, "1.1.0") {
		t.Fatalf("header after a refused lab: %q", h)
	}
	checkFits(t, m)
}
