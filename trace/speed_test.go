package trace

import "testing"

// ParseSpeed takes a positive number, with or without x or ×, or instant;
// nothing else.
func TestParseSpeed(t *testing.T) {
	for in, want := range map[string]float64{"1": 1, "10": 10, "10x": 10, "2.5×": 2.5, "instant": Instant, " INSTANT ": Instant} {
		got, err := ParseSpeed(in)
		if err != nil || got != want {
			t.Errorf("ParseSpeed(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "fast", "NaN", "1e9"} {
		if _, err := ParseSpeed(in); err == nil {
			t.Errorf("ParseSpeed(%q) accepted", in)
		}
	}
}
