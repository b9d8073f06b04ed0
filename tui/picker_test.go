package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/tui/theme"
)

func pickerLabs() []LabChoice {
	return []LabChoice{
		{ID: "gpu-incident", Title: "GPU 사고 재현 — 설정 병합부터 롤아웃 정지까지", Steps: 8},
		{ID: "driver-reboot", Title: "재부팅 뒤 사라진 드라이버 — 라벨로 GPU 스케줄 막기", Steps: 5},
		{ID: "nginx-conf", Title: "nginx 설정 한 줄씩", Steps: 2},
	}
}

func pressPicker(m picker, keys ...string) (picker, tea.Cmd) {
	var cmd tea.Cmd
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		var next tea.Model
		next, cmd = m.Update(msg)
		m = next.(picker)
	}
	return m, cmd
}

// The cursor moves and wraps both ways, enter opens the lab under it, a
// digit opens that lab at once, a digit past the list does nothing, and
// q or esc leave without a choice.
func TestPickerKeys(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want int // -1: no choice
		quit bool
	}{
		{[]string{"enter"}, 0, true},
		{[]string{"j", "enter"}, 1, true},
		{[]string{"j", "j", "j", "enter"}, 0, true}, // wraps past the end
		{[]string{"k", "enter"}, 2, true},           // wraps before the start
		{[]string{"j", "k", "k", "enter"}, 2, true},
		{[]string{"2"}, 1, true},
		{[]string{"9"}, -1, false},
		{[]string{"q"}, -1, true},
		{[]string{"j", "esc"}, -1, true},
	} {
		m, cmd := pressPicker(newPicker(pickerLabs(), theme.New("dark", termenv.Ascii)), tc.keys...)
		if m.chosen != tc.want || (cmd != nil) != tc.quit {
			t.Errorf("%v: chosen %d, quits %v; want %d, %v", tc.keys, m.chosen, cmd != nil, tc.want, tc.quit)
		}
	}
}

// In a 60-column pane every line fits, the cursor's lab is marked, and
// every lab's title shows.
func TestPickerViewFitsNarrowPane(t *testing.T) {
	m, _ := pressPicker(newPicker(pickerLabs(), theme.New("dark", termenv.Ascii)), "j")
	next, _ := m.Update(tea.WindowSizeMsg{Width: 60, Height: 30})
	view := next.(picker).View()
	for i, l := range strings.Split(view, "\n") {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("line %d is %d columns: %q", i+1, w, l)
		}
	}
	if !strings.Contains(view, "▸ 2 driver-reboot") || strings.Contains(view, "▸ 1") {
		t.Errorf("the cursor is not on lab 2:\n%s", view)
	}
	// The help line is the picker's key map's.
	if want := fmt.Sprintf("j/k 이동  enter 열기  1-%d 바로 열기  q 종료", len(pickerLabs())); !strings.Contains(view, want) {
		t.Errorf("no help line %q:\n%s", want, view)
	}
	// Titles wrap: compare them with the spaces and line breaks out.
	flat := strings.NewReplacer(" ", "", "\n", "").Replace(view)
	for _, l := range pickerLabs() {
		if !strings.Contains(flat, strings.ReplaceAll(l.Title, " ", "")) {
			t.Errorf("no title %q:\n%s", l.Title, view)
		}
	}
}
