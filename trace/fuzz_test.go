package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead: no input makes the reader panic, and whatever it accepts can
// be written again and read back to as many records. The seed corpus is
// every trace under testdata (good and bad) plus testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.jsonl")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read("fuzz", bytes.NewReader(data))
		if err != nil {
			if _, ok := err.(*LineError); !ok {
				t.Fatalf("error %T is not a *LineError: %v", err, err)
			}
			return
		}
		var buf bytes.Buffer
		rec, err := NewRecorder(&buf, tr.Header)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tr.Records {
			set := 0
			for _, p := range []bool{r.Obs.File != nil, r.Obs.Object != nil, r.Obs.Script != nil, r.Obs.Cluster != nil, r.Obs.Synced != nil} {
				if p {
					set++
				}
			}
			if set != 1 {
				t.Fatalf("line %d: %d payloads set", r.Line, set)
			}
			rec.Record(r.Obs)
		}
		if rec.Err() != nil {
			t.Fatalf("cannot write back what was read: %v", rec.Err())
		}
		again, err := Read("again", &buf)
		if err != nil {
			t.Fatalf("written back, then: %v", err)
		}
		if len(again.Records) != len(tr.Records) {
			t.Fatalf("%d records, then %d", len(tr.Records), len(again.Records))
		}
	})
}
