package content

import (
	"strconv"
	"strings"
	"time"
)

// Duration spells d the way a Korean reader expects: "0.46초", "5초",
// "1분 5초", "2시간 3분", "7일", "1일 12시간". Under a minute it keeps up to two decimals;
// from a minute on it rounds to whole seconds. Every duration that
// reaches a learner, an author or an instructor goes through it, so
// none shows as Go's "1m5s".
func Duration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	if d > 0 && d < 10*time.Millisecond {
		return Msg("unit.under_10ms")
	}
	if d < time.Minute {
		s := strconv.FormatFloat(d.Seconds(), 'f', 2, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		return Msg("unit.seconds", "n", s)
	}
	d = d.Round(time.Second)
	var parts []string
	if days := int(d.Hours()) / 24; days > 0 {
		parts = append(parts, Msg("unit.days", "n", days))
		d -= time.Duration(days) * 24 * time.Hour
	}
	if h := int(d.Hours()); h > 0 {
		parts = append(parts, Msg("unit.hours", "n", h))
	}
	if m := int(d.Minutes()) % 60; m > 0 {
		parts = append(parts, Msg("unit.minutes", "n", m))
	}
	if s := int(d.Seconds()) % 60; s > 0 {
		parts = append(parts, Msg("unit.seconds", "n", s))
	}
	return strings.Join(parts, " ")
}
