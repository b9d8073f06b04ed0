package board

import (
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/content"
)

func pad(s string, w int) string {
	s = runewidth.Truncate(s, w, "…")
	return s + strings.Repeat(" ", max(0, w-runewidth.StringWidth(s)))
}

// fit is s shortened to w cells with an ellipsis, not padded.
func fit(s string, w int) string { return runewidth.Truncate(s, max(w, 1), "…") }

func padLeft(s string, w int) string {
	s = runewidth.Truncate(s, w, "")
	return strings.Repeat(" ", max(0, w-runewidth.StringWidth(s))) + s
}

// Ago is a duration in whole minutes, in Korean ("3분", "1시간 5분").
func Ago(d time.Duration) string {
	if d < time.Minute {
		return content.Msg("class.board.under_minute")
	}
	mins := int(d / time.Minute)
	if mins < 60 {
		return content.Msg("class.board.minutes", "m", mins)
	}
	return content.Msg("class.board.hours", "h", mins/60, "m", mins%60)
}
