package admin

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube"
)

// Acknowledge tells learner that the instructor saw the hand raised on
// lab: the acknowledgement goes into the learner's acknowledgement
// object (class.AckObject), under the lab's key, by server-side apply
// (made when a class from before acknowledgements has none). Only that
// learner's Role may read it.
func Acknowledge(ctx context.Context, cs kube.Interface, ns, learner, lab string, hand class.Hand, at time.Time) error {
	if !class.ValidLearner(learner) {
		return fmt.Errorf("learner %q", learner)
	}
	v, err := class.MarshalAck(class.Ack{Step: hand.Step, Raised: hand.Raised, At: at.UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	cm := corev1ac.ConfigMap(class.AckObject(learner), ns).
		WithLabels(map[string]string{class.LabelClass: "true", class.LabelLearner: learner, class.LabelAck: "true"}).
		WithData(map[string]string{lab: v})
	_, err = cs.CoreV1().ConfigMaps(ns).Apply(ctx, cm, metav1.ApplyOptions{FieldManager: class.AckFieldManager, Force: true})
	return err
}
