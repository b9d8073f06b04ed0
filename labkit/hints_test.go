package labkit_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/trace"
)

var (
	reportLine = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=(.+)$`)
	tokenSep   = regexp.MustCompile(`[^A-Za-z0-9_./-]+`)
)

// A hint ladder climbs: what to look at, where and with which command,
// then the command itself; its last rung never hands out the answer. For
// every report a step reads (KEY=VALUE lines, as the lab's reference run
// wrote them), the step's last hint must not contain a KEY=VALUE line of
// it, nor any of its values as a word: it gives the command that reads
// them.
func TestLastHintGivesNoReportValue(t *testing.T) {
	checked := 0
	for _, lab := range labkittest.Installed(t) {
		tr, err := trace.ReferenceOf(lab.Text)
		if err != nil {
			t.Fatalf("%s: %v", lab.ID(), err)
		}
		final := map[string]string{}
		for _, r := range tr.Records {
			if f := r.Obs.File; f != nil {
				if f.State == observe.FilePresent {
					final[f.Path] = string(f.Content)
				} else {
					delete(final, f.Path)
				}
			}
		}
		for i, st := range lab.Steps {
			text := lab.Text.Steps[i]
			last := text.Hints[len(text.Hints)-1]
			hint := tokenSet(last)
			for _, rel := range st.Files {
				for line := range strings.SplitSeq(final[rel], "\n") {
					m := reportLine.FindStringSubmatch(strings.TrimSpace(line))
					if m == nil {
						continue
					}
					checked++
					key, value := m[1], m[2]
					if strings.Contains(last, key+"="+value) {
						t.Errorf("%s step %d: the last hint hands out %s=%s: %s", lab.ID(), st.Number, key, value, last)
						continue
					}
					if hint[value] {
						t.Errorf("%s step %d: the last hint gives %s's value %q: %s", lab.ID(), st.Number, key, value, last)
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d report values checked: the reference runs hold no reports?", checked)
	}
}

func tokenSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, tok := range tokenSep.Split(s, -1) {
		out[strings.Trim(tok, ".")] = true
	}
	delete(out, "")
	return out
}
