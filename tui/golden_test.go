package tui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/tui/internal/fixture"
)

// TestGolden runs the whole program (Init, the report channel, renders in
// commands, key presses) with teatest at two pane sizes, colour forced
// off, and compares the final screen with testdata/TestGolden/*.golden.
// Regenerate with: go test ./tui -run TestGolden -update
func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{60, 30}, {100, 40}} {
		for _, page := range []struct {
			name, keys string
			wait       []string // all of these on screen: rendered and settled
		}{
			{"intro", "", []string{"단계별 진행", "왜 중요한가"}},
			{"step2", "2G", []string{"위치:", "할 일"}},
			{"step1-hints", "1hh", []string{"힌트 (2/2)", "따옴표 없는"}},
			{"step2-observed", "2o", []string{"검사별 관측", "드롭인이 정의한"}},
		} {
			name := fmt.Sprintf("%dx%d-%s", sz[0], sz[1], page.name)
			t.Run(name, func(t *testing.T) {
				lab := fixture.Lab()
				reports := make(chan labrun.Update, 1)
				reports <- labrun.Next(nil, fixture.Report(lab))
				m := New(Options{Lab: lab, Root: fixture.Root, Updates: reports, Theme: "dark", Colors: ColorsNone})
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				if page.keys != "" {
					teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
						return bytes.Contains(b, []byte("통과"))
					}, teatest.WithDuration(30*time.Second))
				}
				for _, r := range page.keys {
					tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
				}
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
					for _, w := range page.wait {
						if !bytes.Contains(b, []byte(w)) {
							return false
						}
					}
					return true
				}, teatest.WithDuration(30*time.Second))
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				fm := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(Model)
				checkFits(t, fm)
				view := fm.View()
				if strings.Contains(view, "\x1b[") {
					t.Error("escape sequences with colour off")
				}
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}
