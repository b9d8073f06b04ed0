package trace

import (
	"errors"
	"strconv"
	"strings"

	"github.com/labhub/labmate/content"
)

// ParseSpeed reads --speed: a positive number ("10", "10x") or "instant".
func ParseSpeed(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "x"), "×")
	if t == "instant" || t == "max" {
		return Instant, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0 && v <= 1e6) { // also refuses NaN
		return 0, errors.New(content.Msg("trace.bad_speed", "value", s))
	}
	return v, nil
}
