package admin

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/class"
)

// Ending a class deletes the board's acknowledgements of raised hands
// with the records: nothing of the class stays behind for a class made
// later in the same namespace to read. They are not counted as records.
func TestEndDeletesTheAcknowledgements(t *testing.T) {
	cs := fakeClass(t)
	mustInit(t, initConfig(cs, t.TempDir(), count(2), "gpu-incident"))
	ack := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: class.AckObject("learner-01"), Namespace: "workshop",
		Labels: map[string]string{class.LabelClass: "true", class.LabelLearner: "learner-01", class.LabelAck: "true"}},
		Data: map[string]string{"gpu-incident": "{}"}}
	if _, err := cs.CoreV1().ConfigMaps("workshop").Create(context.Background(), ack, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err := PlanEnd(context.Background(), cs, "workshop")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Acks, []string{class.AckObject("learner-01")}) || len(p.Records) != 2 {
		t.Fatalf("plan: acks %v, records %v", p.Acks, p.Records)
	}
	ended, err := End(context.Background(), cs, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ended.Records != 2 {
		t.Errorf("ended %d records, want 2 (the acknowledgement is none)", ended.Records)
	}
	if names := configMapNames(t, cs); slices.Contains(names, class.AckObject("learner-01")) {
		t.Errorf("the acknowledgement stayed: %v", names)
	}
}
