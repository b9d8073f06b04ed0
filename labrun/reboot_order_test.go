package labrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/trace"
)

// driver-reboot step 3 judges the order the learner did it in: the
// kubelet rejects trainer-a at its re-admission after the reboot, once
// the driver label is gone. The reference run with trainer-a's deletion
// moved before the labels' removal (the same records, at the time just
// before the first label went) leaves step 3 red on a-unlabelled.
func TestRebootRejectionComesAfterTheLabel(t *testing.T) {
	for _, k := range labkittest.Installed(t) {
		if k.ID() != "driver-reboot" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("..", "content", "labs", "driver-reboot", "reference-run.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
		type rec struct {
			AtMS int64           `json:"at_ms"`
			Time string          `json:"time"`
			Kind string          `json:"kind"`
			Data json.RawMessage `json:"data"`
		}
		type objData struct {
			Op     string         `json:"op"`
			Kind   string         `json:"kind"`
			Name   string         `json:"name"`
			Object map[string]any `json:"object"`
		}
		decode := func(l []byte) (rec, objData) {
			var r rec
			var d objData
			_ = json.Unmarshal(l, &r)
			if r.Kind == "object" {
				_ = json.Unmarshal(r.Data, &d)
			}
			return r, d
		}
		// The first Node record after trainer-a ran that has no driver
		// label: the reboot.
		firstUnlabel, ran := -1, false
		var moved [][]byte
		var rest [][]byte
		for i, l := range lines {
			r, d := decode(l)
			if i == 0 || r.Kind != "object" {
				rest = append(rest, l)
				continue
			}
			if d.Kind == "Pod" && d.Name == "trainer-a" {
				phase, _ := d.Object["status"].(map[string]any)["phase"].(string)
				if phase == "Running" && d.Op == "upsert" && firstUnlabel < 0 {
					ran = true
				}
				if firstUnlabel >= 0 {
					moved = append(moved, l)
					continue
				}
			}
			if d.Kind == "Node" && ran && firstUnlabel < 0 {
				labels, _ := d.Object["metadata"].(map[string]any)["labels"].(map[string]any)
				if _, has := labels["gpu.example.com/driver-version"]; !has {
					firstUnlabel = len(rest)
				}
			}
			rest = append(rest, l)
		}
		if firstUnlabel < 0 || len(moved) == 0 {
			t.Fatalf("the reference run has no label removal followed by trainer-a's deletion (%d, %d)", firstUnlabel, len(moved))
		}
		at, _ := decode(rest[firstUnlabel])
		for i, l := range moved {
			var m map[string]any
			if err := json.Unmarshal(l, &m); err != nil {
				t.Fatal(err)
			}
			m["at_ms"], m["time"] = at.AtMS, at.Time
			if moved[i], err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		reordered := append(append(append([][]byte{}, rest[:firstUnlabel]...), moved...), rest[firstUnlabel:]...)
		tr, err := trace.Read("reordered", bytes.NewReader(append(bytes.Join(reordered, []byte("\n")), '\n')))
		if err != nil {
			t.Fatal(err)
		}
		rep, _, err := Exact(context.Background(), k.Text, k.Steps, tr)
		if err != nil {
			t.Fatal(err)
		}
		st := rep.Step(3)
		if st == nil || st.Status == checks.Passed {
			t.Fatalf("step 3 passed with trainer-a deleted before the reboot: %+v", st)
		}
		for _, c := range st.Checks {
			if c.ID == "reboot.a-unlabelled" && c.Status != checks.Failed {
				t.Errorf("a-unlabelled %s: %s", c.Status, c.Message)
			}
		}
		return
	}
	t.Fatal("driver-reboot is not installed")
}
