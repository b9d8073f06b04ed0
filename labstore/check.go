package labstore

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
)

// Check loads the lab in dir as labmate runs a lab from outside the
// binary (`lab verify --no-cluster`'s load checks): lab.toml decodes
// strictly, every file it names exists, its ID can name a directory,
// every step has declarative checks (no Go comes with it), they compile
// with every message key they show, and every message is well formed.
// Problems name their files relative to dir.
func Check(dir string) (*labkit.Lab, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	text, err := content.LoadDir(abs)
	if err != nil {
		return nil, notALab(err, abs)
	}
	if !ValidID(text.ID) {
		return nil, &Refusal{Reason: BadID, Lab: text.ID}
	}
	if steps := goSteps(text); len(steps) > 0 {
		return nil, &Refusal{Reason: GoChecks, Lab: text.ID, Steps: steps}
	}
	kit, err := labkit.Compile(text, nil)
	if err != nil {
		return nil, notALab(err, abs)
	}
	probs := kit.Problems
	for _, k := range text.OwnKeys() {
		tpl, _ := text.MsgTemplate(k)
		file, at, _ := text.MsgAt(k)
		for _, p := range content.FormProblems(tpl) {
			probs = append(probs, &content.Problem{File: file, Line: at.Line, Col: at.Col, Msg: k + ": " + p})
		}
	}
	if len(probs) > 0 {
		return nil, &Refusal{Reason: NotALab, Problems: relative(probs, abs)}
	}
	return kit, nil
}

// goSteps are the lab's steps without declarative checks, which only
// Go compiled into labmate (labs.Code) could decide, as "N (id)".
func goSteps(l *content.Lab) []string {
	var out []string
	for _, s := range l.Steps {
		if len(s.Checks) == 0 {
			out = append(out, fmt.Sprintf("%d (%s)", s.Number, s.ID))
		}
	}
	return out
}

// idForm is what an installed lab's ID may look like: it names a
// directory, and "@" is kept for choosing a copy (--lab ID@installed).
var idForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`) })

// ValidID reports whether id can name an installed lab.
func ValidID(id string) bool {
	return idForm().MatchString(id) && !strings.Contains(id, "..")
}

// notALab turns a load error into a NotALab refusal.
func notALab(err error, abs string) error {
	var p *content.Problem
	if !errors.As(err, &p) {
		p = &content.Problem{Msg: err.Error()}
	}
	return &Refusal{Reason: NotALab, Problems: relative([]*content.Problem{p}, abs)}
}

// relative copies the problems with their files named relative to the
// lab's directory: an archive unpacks into a temporary one whose name
// means nothing to its author.
func relative(probs []*content.Problem, abs string) []*content.Problem {
	out := make([]*content.Problem, len(probs))
	for i, p := range probs {
		c := *p
		if rel, err := filepath.Rel(abs, c.File); err == nil && filepath.IsAbs(c.File) && !strings.HasPrefix(rel, "..") {
			c.File = filepath.ToSlash(rel)
		}
		out[i] = &c
	}
	return out
}
