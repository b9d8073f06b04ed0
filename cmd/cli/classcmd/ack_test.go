package classcmd

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/kube/kubefake"
)

// The board's acknowledgement writes the learner's ack object; when the
// cluster refuses, what the board shows is the refusal in Korean, as
// the instructor's other errors are worded, never the API server's
// English.
func TestTheBoardsAcknowledgementIsWordedInKorean(t *testing.T) {
	ctx := context.Background()
	hand := class.Hand{Step: 3, Raised: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)}
	cs := kubefake.New()
	if err := acknowledger(ctx, cs, "gpu-class")("learner-01", "gpu-incident", hand); err != nil {
		t.Fatalf("acknowledge: %v", err)
	}
	if _, err := cs.CoreV1().ConfigMaps("gpu-class").Get(ctx, class.AckObject("learner-01"), metav1.GetOptions{}); err != nil {
		t.Fatalf("no ack object: %v", err)
	}

	denied := kubefake.New()
	refusal := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, class.AckObject("learner-02"), nil)
	denied.PrependReactor("patch", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, refusal })
	err := acknowledger(ctx, denied, "gpu-class")("learner-02", "gpu-incident", hand)
	if err == nil {
		t.Fatal("a refused acknowledgement returned no error")
	}
	if want := kube.Explain(refusal); err.Error() != want || strings.Contains(err.Error(), "forbidden") {
		t.Errorf("the board would show %q, want the refusal worded %q", err, want)
	}
}
