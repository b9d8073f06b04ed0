package class

import "testing"

func TestUnmarshalRefusesOtherSchemas(t *testing.T) {
	for _, in := range []string{`{"schema":4}`, `{"schema":0}`, `not json`, ``, `{"schema":1,"steps":"x"}`} {
		if _, err := Unmarshal([]byte(in)); err == nil {
			t.Errorf("Unmarshal(%q) accepted", in)
		}
	}
}

// A schema 1 record (before arrival, first pass and attempts) is still
// read, its new fields zero.
func TestUnmarshalReadsSchema1(t *testing.T) {
	v1 := `{"schema": 1, "learner": "ana", "name": "ana", "lab": "gpu-incident", "labmate": "v0.9.0",
		"updated": "2026-12-01T09:00:00Z", "current": 2, "currentSince": "2026-12-01T08:50:00Z",
		"steps": [{"number": 1, "status": "passed", "since": "2026-12-01T08:50:00Z", "hints": 1},
		          {"number": 2, "status": "failed", "since": "2026-12-01T08:50:00Z", "hints": 0,
		           "failing": [{"id": "crd", "status": "failed"}]}]}`
	r, err := Unmarshal([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != 1 || r.Passed() != 1 || r.Step(2).Failing[0].ID != "crd" || r.Step(1).Attempts != 0 || !r.Step(1).Arrived.IsZero() {
		t.Fatalf("schema 1 record read as %+v", r)
	}
	if _, ok := r.Step(1).TimeToPass(); ok {
		t.Fatal("a schema 1 step has a time to pass")
	}
}
