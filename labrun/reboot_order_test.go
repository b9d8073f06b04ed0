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

// driver-reboot step 3 asks no order between the restarted kubelet's
// rejection of trainer-a and the driver label's removal: a real node
// produces either (the device manager rejects a pod that requests
// nvidia.com/gpu whether or not the label is still there, and the tool
// that removes the label runs on its own schedule). The reference run
// rejects trainer-a first; the same records with trainer-a's deletion
// moved after both labels went must pass step 3 too.
func TestRebootRejectionInEitherOrder(t *testing.T) {
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
		// trainer-a's records from its deletion on (the kubelet's
		// rejection, played), and the last Node record that lost the
		// driver label (the second node's removal).
		ran, rejected := false, false
		lastUnlabel := -1
		var moved, rest [][]byte
		for i, l := range lines {
			r, d := decode(l)
			if i == 0 || r.Kind != "object" {
				rest = append(rest, l)
				continue
			}
			if d.Kind == "Pod" && d.Name == "trainer-a" {
				meta, _ := d.Object["metadata"].(map[string]any)
				phase, _ := d.Object["status"].(map[string]any)["phase"].(string)
				if phase == "Running" && d.Op == "upsert" && meta["deletionTimestamp"] == nil {
					ran = true
				} else if ran && (d.Op == "delete" || meta["deletionTimestamp"] != nil) {
					rejected = true
				}
				if rejected {
					moved = append(moved, l)
					continue
				}
			}
			if d.Kind == "Node" && ran {
				labels, _ := d.Object["metadata"].(map[string]any)["labels"].(map[string]any)
				if _, has := labels["gpu.example.com/driver-version"]; !has {
					lastUnlabel = len(rest)
				}
			}
			rest = append(rest, l)
		}
		if !rejected || lastUnlabel < 0 {
			t.Fatalf("the reference run has no deletion of a running trainer-a (%v) or no label removal (%d)", rejected, lastUnlabel)
		}
		at, _ := decode(rest[lastUnlabel])
		if first, _ := decode(moved[0]); first.AtMS > at.AtMS {
			t.Fatalf("the reference run already removes the labels before it rejects trainer-a (%d ms, %d ms): record it with the kubelet's rejection first", first.AtMS, at.AtMS)
		}
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
		reordered := append(append(append([][]byte{}, rest[:lastUnlabel+1]...), moved...), rest[lastUnlabel+1:]...)
		for name, records := range map[string][][]byte{"recorded": lines, "label first": reordered} {
			tr, err := trace.Read(name, bytes.NewReader(append(bytes.Join(records, []byte("\n")), '\n')))
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := Exact(context.Background(), k.Text, k.Steps, tr)
			if err != nil {
				t.Fatal(err)
			}
			if st := rep.Step(3); st == nil || st.Status != checks.Passed {
				t.Errorf("%s order: step 3 is not passed: %+v", name, st)
			}
		}
		return
	}
	t.Fatal("driver-reboot is not installed")
}
