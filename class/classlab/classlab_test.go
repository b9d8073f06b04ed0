package classlab

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube/kubefake"
)

const testNS = "class-a"

func hasHangul(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 })
}

// A lab that does not fit in one object is refused before anything is
// written, with its size in the message.
func TestStoreLabRefusesALabTooBigForOneObject(t *testing.T) {
	cs := kubefake.New()
	ctx := context.Background()
	if _, err := StoreLab(ctx, cs, testNS, class.NewLabArchive("big-lab", "1", make([]byte, class.MaxLabBytes))); err != nil {
		t.Fatalf("a lab of exactly MaxLabBytes: %v", err)
	}
	_, err := StoreLab(ctx, cs, testNS, class.NewLabArchive("big-lab", "2", make([]byte, 3<<19)))
	var big class.LabTooBig
	if !errors.As(err, &big) || big.Size != 3<<19 {
		t.Fatalf("a 1.5 MiB lab: %v, want LabTooBig", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "1.5 MiB") || !strings.Contains(msg, "1.0 MiB") || !hasHangul(msg) {
		t.Errorf("message %q: want the size, the limit, in Korean", msg)
	}
	got, err := FetchLab(ctx, cs, testNS)
	if err != nil || got.Version != "1" {
		t.Fatalf("the refused lab replaced the stored one: %+v, %v", got.Version, err)
	}
}

func TestStoreAndFetchLab(t *testing.T) {
	cs := kubefake.New()
	ctx := context.Background()
	if _, err := FetchLab(ctx, cs, testNS); !errors.Is(err, class.ErrNoLab) {
		t.Fatalf("a class without a lab: %v, want ErrNoLab", err)
	}
	payload := []byte("packed lab bytes")
	// The digest is the bytes', whatever the caller says.
	stored, err := StoreLab(ctx, cs, testNS, class.LabArchive{ID: "my-lab", Version: "1.2.0", Sum: "cafe", Bytes: payload})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Sum != class.Digest(payload) || len(stored.Sum) != 64 {
		t.Fatalf("stored sum %q, want the bytes' sha256", stored.Sum)
	}
	got, err := FetchLab(ctx, cs, testNS)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "my-lab" || got.Version != "1.2.0" || got.Sum != stored.Sum || !bytes.Equal(got.Bytes, payload) {
		t.Fatalf("fetched %+v", got)
	}
	// The lab object is never read as a record.
	o, _ := cs.CoreV1().ConfigMaps(testNS).Get(ctx, class.LabObject, metav1.GetOptions{})
	if c := class.Collect([]*corev1.ConfigMap{o}, ""); len(c.Records) != 0 || c.Lab.ID != "my-lab" {
		t.Errorf("the lab object was read as a record, or not as the class's lab: %+v", c)
	}
	for _, id := range []string{"", "My_Lab", "a.b/c", strings.Repeat("x", 64)} {
		if _, err := StoreLab(ctx, cs, testNS, class.NewLabArchive(id, "1", payload)); !errors.As(err, new(class.LabBadID)) {
			t.Errorf("lab ID %q: %v, want LabBadID", id, err)
		}
	}
}

// Bytes changed behind the digest are refused with a Korean message that
// names both digests; so is an object missing its digest.
func TestFetchLabRefusesBytesThatDoNotMatchTheirDigest(t *testing.T) {
	cs := kubefake.New()
	ctx := context.Background()
	stored, err := StoreLab(ctx, cs, testNS, class.NewLabArchive("my-lab", "1", []byte("the instructor's lab")))
	if err != nil {
		t.Fatal(err)
	}
	tamper(t, cs, func(o map[string][]byte, ann map[string]string) {
		o[class.LabArchiveKey] = []byte("someone else's lab")
	})
	_, err = FetchLab(ctx, cs, testNS)
	var bad class.LabTampered
	if !errors.As(err, &bad) || bad.Want != stored.Sum || bad.Got != class.Digest([]byte("someone else's lab")) {
		t.Fatalf("tampered bytes: %v, want LabTampered", err)
	}
	if msg := err.Error(); !hasHangul(msg) || !strings.Contains(msg, stored.Sum[:12]) {
		t.Errorf("message %q: want Korean naming the digest", msg)
	}
	tamper(t, cs, func(_ map[string][]byte, ann map[string]string) { delete(ann, class.AnnotationLabSum) })
	if _, err := FetchLab(ctx, cs, testNS); !errors.As(err, new(class.LabUnreadable)) {
		t.Fatalf("no digest: %v, want LabUnreadable", err)
	}
}

func tamper(t *testing.T, cs *kubefake.Clientset, edit func(map[string][]byte, map[string]string)) {
	t.Helper()
	ctx := context.Background()
	o, err := cs.CoreV1().ConfigMaps(testNS).Get(ctx, class.LabObject, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edit(o.BinaryData, o.Annotations)
	if _, err := cs.CoreV1().ConfigMaps(testNS).Update(ctx, o, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// The watch says nothing of the lab the learner has, delivers a new
// verified version, and delivers a tampered object as refused.
func TestWatchLabNoticesANewVersion(t *testing.T) {
	cs := kubefake.New()
	// The watch runs until the test ends: each wait below has its own
	// bound, and a deadline here would end the watch under them.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v1, err := StoreLab(ctx, cs, testNS, class.NewLabArchive("my-lab", "1", []byte("v1")))
	if err != nil {
		t.Fatal(err)
	}
	notices := WatchLab(ctx, cs, testNS, v1.Sum)
	select {
	case n := <-notices:
		t.Fatalf("a notice for the lab the learner has: %+v", n)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := StoreLab(ctx, cs, testNS, class.NewLabArchive("my-lab", "2", []byte("v2"))); err != nil {
		t.Fatal(err)
	}
	n := next(t, notices)
	if n.Err != nil || n.Lab.Version != "2" || string(n.Lab.Bytes) != "v2" {
		t.Fatalf("notice %+v, want version 2", n)
	}
	tamper(t, cs, func(o map[string][]byte, _ map[string]string) { o[class.LabArchiveKey] = []byte("v3?") })
	if n := next(t, notices); !errors.As(n.Err, new(class.LabTampered)) {
		t.Fatalf("notice %+v, want LabTampered", n)
	}
}

func next(t *testing.T, ch <-chan LabNotice) LabNotice {
	t.Helper()
	select {
	case n := <-ch:
		return n
	case <-time.After(30 * time.Second):
		t.Fatal("no notice in 30 s")
	}
	return LabNotice{}
}

// A push replaces the class's lab with a copy of the same lab; another
// lab, or a class without one, is refused; the same bytes write nothing;
// a damaged object is repaired.
func TestPushLab(t *testing.T) {
	cs := kubefake.New()
	ctx := context.Background()
	if _, _, err := PushLab(ctx, cs, testNS, class.NewLabArchive("my-lab", "1", []byte("v1"))); !errors.Is(err, class.ErrNoLab) {
		t.Fatalf("push to a class without a lab: %v", err)
	}
	if _, err := StoreLab(ctx, cs, testNS, class.NewLabArchive("my-lab", "1", []byte("v1"))); err != nil {
		t.Fatal(err)
	}
	_, _, err := PushLab(ctx, cs, testNS, class.NewLabArchive("other-lab", "1", []byte("x")))
	var other LabOtherID
	if !errors.As(err, &other) || other.Have != "my-lab" || !hasHangul(err.Error()) {
		t.Fatalf("push of another lab: %v", err)
	}
	before, _ := cs.CoreV1().ConfigMaps(testNS).Get(ctx, class.LabObject, metav1.GetOptions{})
	if _, same, err := PushLab(ctx, cs, testNS, class.NewLabArchive("my-lab", "1", []byte("v1"))); err != nil || !same {
		t.Fatalf("push of the same bytes: same %v, %v", same, err)
	}
	after, _ := cs.CoreV1().ConfigMaps(testNS).Get(ctx, class.LabObject, metav1.GetOptions{})
	if after.ResourceVersion != before.ResourceVersion {
		t.Error("a push of the same bytes wrote the object")
	}
	tamper(t, cs, func(o map[string][]byte, _ map[string]string) { o[class.LabArchiveKey] = []byte("broken") })
	if _, same, err := PushLab(ctx, cs, testNS, class.NewLabArchive("my-lab", "1", []byte("v1"))); err != nil || same {
		t.Fatalf("push over a damaged object: same %v, %v", same, err)
	}
	if got, err := FetchLab(ctx, cs, testNS); err != nil || string(got.Bytes) != "v1" {
		t.Fatalf("after the repair: %v", err)
	}
	stored, same, err := PushLab(ctx, cs, testNS, class.NewLabArchive("my-lab", "2", []byte("v2")))
	if err != nil || same || stored.Version != "2" {
		t.Fatalf("push of version 2: %+v %v %v", stored.Version, same, err)
	}
}
