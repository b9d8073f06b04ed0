package verify

import (
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

// withVerify is a copy of a lab whose verify.toml's wrong answers fn may
// change (the embedded lab is shared).
func withVerify(t *testing.T, id string, fn func(steps []content.VerifyStep)) *content.Lab {
	t.Helper()
	text, err := content.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	c := *text
	v := *text.Verify
	v.Steps = slices.Clone(v.Steps)
	for i := range v.Steps {
		v.Steps[i].Wrong = slices.Clone(v.Steps[i].Wrong)
	}
	c.Verify = &v
	fn(v.Steps)
	return &c
}

// wrongCase is the wrong answer of verify.toml named case.
func wrongCase(t *testing.T, steps []content.VerifyStep, name string) *content.Wrong {
	t.Helper()
	for i := range steps {
		for j := range steps[i].Wrong {
			if steps[i].Wrong[j].Case == name {
				return &steps[i].Wrong[j]
			}
		}
	}
	t.Fatalf("no wrong answer %q", name)
	return nil
}

func labelProblemsOf(text *content.Lab) []string {
	var out []string
	for _, p := range verifyProblems(text) {
		out = append(out, p.Error())
	}
	return out
}

// The labs' labels pass: each names one mistake (gpu-quota's two spellings
// one message refuses share theirs), each with a check and a message.
func TestTheLabsLabelsAreNames(t *testing.T) {
	for _, id := range []string{"gpu-incident", "driver-reboot", "gpu-quota"} {
		text, err := content.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		labelled := 0
		for _, vs := range text.Verify.Steps {
			for _, w := range vs.Wrong {
				if w.Label != "" {
					labelled++
				}
			}
		}
		if labelled == 0 {
			t.Errorf("%s names no mistake", id)
		}
		if ps := labelProblemsOf(text); len(ps) > 0 {
			t.Errorf("%s: %v", id, ps)
		}
	}
}

// A label two different mistakes share is refused; so is one that cannot
// be recognised (no check or no message) or is too wide for the board.
func TestLabelsThatNameNoOneMistakeAreRefused(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, steps []content.VerifyStep)
		want   []string
	}{
		{"shared by two steps", func(t *testing.T, steps []content.VerifyStep) {
			wrongCase(t, steps, "no-toleration").Label = wrongCase(t, steps, "replacement-without-toleration").Label
		}, []string{"replacement-without-toleration", "require-label/no-toleration", "다른 실수"}},
		{"shared by two checks of a step", func(t *testing.T, steps []content.VerifyStep) {
			wrongCase(t, steps, "every-node").Label = wrongCase(t, steps, "one-gpu-node").Label
		}, []string{"every-node", "driver-label/one-gpu-node"}},
		{"no message", func(t *testing.T, steps []content.VerifyStep) {
			wrongCase(t, steps, "one-gpu-node").Message = nil
		}, []string{"one-gpu-node", "알아볼 수 없습니다"}},
		{"no check", func(t *testing.T, steps []content.VerifyStep) {
			wrongCase(t, steps, "one-gpu-node").Check = ""
		}, []string{"one-gpu-node", "알아볼 수 없습니다"}},
		{"too wide", func(t *testing.T, steps []content.VerifyStep) {
			wrongCase(t, steps, "one-gpu-node").Label = strings.Repeat("가", 19)
		}, []string{"one-gpu-node", "36칸"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := withVerify(t, "driver-reboot", func(steps []content.VerifyStep) { c.change(t, steps) })
			ps := labelProblemsOf(text)
			if len(ps) != 1 {
				t.Fatalf("problems %v, want one", ps)
			}
			for _, w := range c.want {
				if !strings.Contains(ps[0], w) {
					t.Errorf("problem %q does not say %q", ps[0], w)
				}
			}
		})
	}
	// One label on wrong answers of one check is one mistake.
	text := withVerify(t, "driver-reboot", func(steps []content.VerifyStep) {
		wrongCase(t, steps, "preferred-only").Label = wrongCase(t, steps, "no-toleration").Label
	})
	if ps := labelProblemsOf(text); len(ps) > 0 {
		t.Errorf("one label on one check's wrong answers refused: %v", ps)
	}
}
