package content

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                     "0초",
		3 * time.Millisecond:                  "0.01초 미만",
		460 * time.Millisecond:                "0.46초",
		250 * time.Millisecond:                "0.25초",
		5 * time.Second:                       "5초",
		12300 * time.Millisecond:              "12.3초",
		time.Minute:                           "1분",
		65*time.Second + 400*time.Millisecond: "1분 5초",
		2*time.Hour + 3*time.Minute:           "2시간 3분",
		time.Hour + 1*time.Second:             "1시간 1초",
		7 * 24 * time.Hour:                    "7일",
		36*time.Hour + 10*time.Minute:         "1일 12시간 10분",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// A duration given to a message is spelled by Duration: no caller can let
// Go's "1m5s" through.
func TestMessagesSpellDurations(t *testing.T) {
	if got := fill("{took} 걸림", []any{"took", 65 * time.Second}); got != "1분 5초 걸림" {
		t.Errorf("fill = %q", got)
	}
}
