package main

import (
	"errors"
	"slices"
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labstore"
	"github.com/labhub/labmate/state"
)

// Which copy of a lab a --lab value names after its ID: "ID@embedded",
// "ID@installed", or "ID@VERSION" (an installed version).
const (
	refEmbedded  = "embedded"
	refInstalled = "installed"
)

// labOption is a lab --lab can name: Ref is what --lab takes to open it,
// Text its text, Installed its record when it is an installed lab.
type labOption struct {
	Ref       string
	Text      *content.Lab
	Installed *labstore.Installed
}

// labOptions are the labs to choose among: every embedded lab that
// loads, then the current version of every installed lab that loads. An
// installed lab with an embedded lab's ID is named ID@installed: the
// embedded one keeps the plain ID, for it is the one built and proven
// with labmate (Go checks and all) and must not be replaced by a copy
// from elsewhere without the learner saying so. A store that cannot be
// read hides every installed lab: unread says so in Korean ("" when it
// was read).
func labOptions() (out []labOption, unread string) {
	for _, id := range content.IDs() {
		if l, err := content.Load(id); err == nil {
			out = append(out, labOption{Ref: id, Text: l})
		}
	}
	all, err := labstore.List()
	if err != nil {
		unread = content.Msg("cli.store_unreadable", "err", err)
	}
	for _, in := range all {
		if !in.Current {
			continue
		}
		l, err := content.LoadDir(in.Dir)
		if err != nil {
			continue
		}
		out = append(out, labOption{Ref: installedRef(in), Text: l, Installed: &in})
	}
	return out, unread
}

// installedRef is what --lab takes to open an installed lab: its ID, or
// ID@installed when an embedded lab has that ID; ID@VERSION for a
// version that is not the current one.
func installedRef(in labstore.Installed) string {
	switch {
	case !in.Current:
		return in.ID + "@" + in.Version
	case in.Shadowed:
		return in.ID + "@" + refInstalled
	}
	return in.ID
}

// openRef compiles the lab a --lab value names: ID is the embedded lab of
// that ID, else the installed one; ID@embedded and ID@installed say
// which; ID@VERSION is that installed version. An installed lab runs
// its declarative checks only.
func openRef(ref string, options []labOption) (*labkit.Lab, error) {
	id, which, _ := strings.Cut(ref, "@")
	embedded := slices.Contains(content.IDs(), id)
	switch {
	case which == refEmbedded || which == "" && embedded:
		return labkit.Open(id)
	case which == refInstalled:
		ref = id
	}
	in, err := labstore.Find(ref)
	if err != nil {
		if which == "" {
			refs := make([]string, len(options))
			for i, o := range options {
				refs[i] = o.Ref
			}
			return nil, errors.New(content.Msg("content.no_lab", "lab", ref, "labs", strings.Join(refs, ", ")))
		}
		return nil, err
	}
	return in.Open()
}

// stateLab is the lab as the learner's state keys it: its ID, version
// and step IDs, so progress of two versions never mixes.
func stateLab(l *content.Lab) state.Lab {
	steps := map[int]string{}
	for _, s := range l.Steps {
		steps[s.Number] = s.ID
	}
	return state.Lab{ID: l.ID, Version: l.Version, Steps: steps}
}
