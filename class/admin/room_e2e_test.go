package admin_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/class/classstats"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/action"
	"github.com/labhub/labmate/labkit/catchup"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/state"
)

// A room that keeps moving, on the sandbox's API server with the Roles
// init makes: five learners of gpu-incident, each with a lab root of
// their own judged by labmate's own run. Three wrote the lab's named
// wrong answer "따옴표 없는 플러그인 이름" (verify.toml's unquoted-plugin,
// done by labkit/action as lab verify does it); one caught step 1 up
// with labkit/catchup; one raised a hand with a note, which the
// instructor acknowledged through admin.Acknowledge and the learner's
// labmate saw through its watch. The instructor's records then show the
// three in the mistake on step 1, the caught-up step, and the
// acknowledged hand; a learner reads its own acknowledgement and no one
// else's, and cannot write it.
func TestARoomThatKeepsMovingE2E(t *testing.T) {
	names := []string{"l1", "l2", "l3", "l4", "l5"}
	cs, ns, files := initClass(t, names)
	kit, err := labkit.Open("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	lab := kit.Text
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	answers := t.TempDir()
	if err := action.Extract(lab.FS, lab.Answers, answers); err != nil {
		t.Fatal(err)
	}
	wrong := wrongAnswer(t, lab, "unquoted-plugin")
	if wrong.Label != "따옴표 없는 플러그인 이름" {
		t.Fatalf("the case's label is %q", wrong.Label)
	}

	pubs := map[string]*learner.Publisher{}
	for i, name := range names {
		root := filepath.Join(t.TempDir(), "lab")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		steps := map[int]string{}
		for _, s := range lab.Steps {
			steps[s.Number] = s.ID
		}
		store, err := state.OpenLab(t.TempDir(), state.Lab{ID: lab.ID, Version: lab.Version, Steps: steps}, root)
		if err != nil {
			t.Fatal(err)
		}
		switch name {
		case "l1", "l2", "l3":
			if _, err := (action.Doer{Root: root, Answers: answers}).Do(ctx, wrong.Action); err != nil {
				t.Fatal(err)
			}
		case "l4":
			run := newRun(t, kit, root, store)
			p, err := catchup.New(ctx, catchup.Options{Kit: kit, Root: root, Run: run, Cluster: kube.Target{Off: true}, Progress: store, To: 2})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := p.Do(ctx, &out); err != nil {
				t.Fatalf("catch-up: %v\n%s", err, out.String())
			}
			p.Close()
		}
		f, err := store.Load()
		if err != nil {
			t.Fatal(err)
		}
		rep := newRun(t, kit, root, store).Once(ctx, time.Minute)

		l, err := openLearner(files[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		pub, err := learner.Join(ctx, learner.JoinConfig{Learner: l, Identity: class.Identity{Name: name, Lab: lab.ID, Labmate: "test"},
			Progress: f.Progress, Lab: lab, Hands: name == "l5"})
		if err != nil {
			t.Fatal(err)
		}
		if err := learner.PublishOnce(ctx, pub, rep); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pubs[name] = pub
	}

	// l5 raises a hand; the instructor sees it and acknowledges it.
	pubs["l5"].RaiseHand("설정 파일이 맞는데 왜 실패할까요?")
	var hand classstats.Hand
	waitClass(t, ctx, cs, ns, func(c class.Class) bool {
		hs := classstats.Hands(c.Records, time.Now())
		if len(hs) == 1 {
			hand = hs[0]
		}
		return len(hs) == 1 && !hs[0].Acked
	})
	if hand.Learner != "l5" || hand.Step != 1 || hand.Note == "" || len(hand.Checks) == 0 || hand.Checks[0].Message == "" {
		t.Fatalf("l5's hand on the board: %+v", hand)
	}
	if err := admin.Acknowledge(ctx, cs, ns, "l5", lab.ID, hand.Hand, time.Now()); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-pubs["l5"].Acks():
		if !a.Acknowledges(&hand.Hand) {
			t.Fatalf("l5 saw %+v, not the acknowledgement of its hand", a)
		}
	case <-ctx.Done():
		t.Fatal("l5's labmate never saw the acknowledgement")
	}
	c := waitClass(t, ctx, cs, ns, func(c class.Class) bool {
		hs := classstats.Hands(c.Records, time.Now())
		return len(hs) == 1 && hs[0].Acked
	})
	s := classstats.Summarize(c.Records, len(lab.Steps))
	if got := s.Steps[0].Mistakes; len(got) != 1 || got[0] != (classstats.CheckCount{ID: wrong.Label, N: 3}) {
		t.Errorf("step 1's named mistakes %+v, want 3 learners in %q", got, wrong.Label)
	}
	if s.Steps[0].CaughtUp != 1 || s.Steps[0].Hands != 1 || len(s.Steps[0].AckTimes) != 1 {
		t.Errorf("step 1: caught up %d, hands %d, ack times %v; want 1, 1, one", s.Steps[0].CaughtUp, s.Steps[0].Hands, s.Steps[0].AckTimes)
	}

	// The acknowledgement: l5 reads its own, l1 cannot read it, and l5
	// cannot write it.
	l5, err := openLearner(files[4].Path)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := openLearner(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	c5, _ := l5.Requests().Typed()
	c1, _ := l1.Requests().Typed()
	if _, err := c5.CoreV1().ConfigMaps(ns).Get(ctx, class.AckObject("l5"), metav1.GetOptions{}); err != nil {
		t.Errorf("l5 reading its acknowledgement: %v", err)
	}
	if _, err := c1.CoreV1().ConfigMaps(ns).Get(ctx, class.AckObject("l5"), metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("l1 reading l5's acknowledgement: %v, want 403", err)
	}
	forged := corev1ac.ConfigMap(class.AckObject("l5"), ns).WithData(map[string]string{lab.ID: "{}"})
	if _, err := c5.CoreV1().ConfigMaps(ns).Apply(ctx, forged, metav1.ApplyOptions{FieldManager: class.FieldManager, Force: true}); !apierrors.IsForbidden(err) {
		t.Errorf("l5 writing its acknowledgement: %v, want 403", err)
	}
}

// wrongAnswer is the wrong answer case of lab's verify.toml.
func wrongAnswer(t *testing.T, lab *content.Lab, name string) content.Wrong {
	t.Helper()
	for _, s := range lab.Verify.Steps {
		for _, w := range s.Wrong {
			if w.Case == name {
				return w
			}
		}
	}
	t.Fatalf("no wrong answer %q in %s's verify.toml", name, lab.ID)
	return content.Wrong{}
}

// newRun is a learner's run of kit over root without a cluster, as
// `labmate check --no-cluster` makes it.
func newRun(t *testing.T, kit *labkit.Lab, root string, store *state.Store) *labrun.Run {
	t.Helper()
	f, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	run, err := labrun.New(labrun.Options{Lab: kit.Text, Steps: kit.Steps, Scope: kit.Scope, Root: root, Cluster: kube.Target{Off: true},
		Progress: store, Witness: f.Witness, Passed: f.Progress.Done()})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// waitClass lists the class until ok holds (the learners' publishers
// send on their own time), and returns it.
func waitClass(t *testing.T, ctx context.Context, cs kube.Interface, ns string, ok func(class.Class) bool) class.Class {
	t.Helper()
	for {
		c, err := admin.List(ctx, cs, ns, "gpu-incident")
		if err == nil && ok(c) {
			return c
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the class never got there: %+v, %v", c, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
