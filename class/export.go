package class

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/labhub/labmate/checks"
)

// List reads every record of a lab ("" for all) in the class namespace once.
func List(ctx context.Context, cs kubernetes.Interface, ns, lab string) (Class, error) {
	l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return Class{}, err
	}
	objs := make([]*corev1.ConfigMap, 0, len(l.Items))
	for i := range l.Items {
		objs = append(objs, &l.Items[i])
	}
	c := Collect(objs, lab)
	c.Synced, c.At = true, time.Now()
	return c, nil
}

// Export is the grading export's JSON shape.
type Export struct {
	Learners []ExportLearner `json:"learners"`
}

// ExportLearner is one learner's record for grading: Learner and Lab
// from the record object's name, Flag (and no steps) when its content
// is not believed.
type ExportLearner struct {
	Name    string `json:"name"`
	Learner string `json:"learner"`
	Lab     string `json:"lab"`
	// LabVersion is the version of the lab the learner's labmate ran.
	LabVersion string       `json:"labVersion,omitempty"`
	Updated    time.Time    `json:"updated"`
	Flag       Flag         `json:"flag,omitempty"`
	Steps      []ExportStep `json:"steps"`
}

// ExportStep is one step for grading; Status as in `check --json`.
type ExportStep struct {
	Number int           `json:"number"`
	Status checks.Status `json:"status"`
	Hints  int           `json:"hints"`
}

// ToExport turns a class into the export shape.
func ToExport(c Class) Export {
	e := Export{Learners: []ExportLearner{}}
	for _, r := range c.Records {
		l := ExportLearner{Name: r.Name, Learner: r.Learner, Lab: r.Lab, LabVersion: r.LabVersion, Updated: r.Updated, Flag: r.Flag, Steps: []ExportStep{}}
		for _, s := range r.Steps {
			l.Steps = append(l.Steps, ExportStep{Number: s.Number, Status: s.Status, Hints: s.Hints})
		}
		e.Learners = append(e.Learners, l)
	}
	return e
}

// WriteJSON writes the export as indented JSON.
func WriteJSON(w io.Writer, c Class) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(ToExport(c))
}

// WriteCSV writes one row per learner and step (a long table a
// spreadsheet pivots as it likes): name, learner, lab, updated, flag,
// step, status, hints, lab_version (last, so sheets made before it
// keep their columns). A learner with no steps (none yet, or a flagged
// record) gets one row with empty step columns, so nobody vanishes from
// the grade sheet.
func WriteCSV(w io.Writer, c Class) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"name", "learner", "lab", "updated", "flag", "step", "status", "hints", "lab_version"})
	for _, l := range ToExport(c).Learners {
		updated := ""
		if !l.Updated.IsZero() {
			updated = l.Updated.UTC().Format(time.RFC3339)
		}
		if len(l.Steps) == 0 {
			_ = cw.Write([]string{l.Name, l.Learner, l.Lab, updated, string(l.Flag), "", "", "", l.LabVersion})
		}
		for _, s := range l.Steps {
			_ = cw.Write([]string{l.Name, l.Learner, l.Lab, updated, string(l.Flag), strconv.Itoa(s.Number), string(s.Status), strconv.Itoa(s.Hints), l.LabVersion})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	return nil
}
