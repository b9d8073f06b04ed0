package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
)

// The learner's side of a class for one command line: the class's lab
// a --class run opens, and the session joining the class.

// ForClass is the factory of a --class run: when the learner named no
// lab (--lab, --lab-dir; $LABMATE_LAB is a default the class overrides),
// the class's lab: fetched and checked, installed and opened from the
// store (classlab.Use), or the built-in lab the class names. A class
// that names no lab, or a class file that cannot be used (the session's
// Join says why), changes nothing; a class cluster that does not answer,
// with no copy of its lab installed before, adds a notice. The error
// (Korean) ends the run: the class's lab was refused and none was
// installed before.
func (f *Factory) ForClass(ctx context.Context, file string) (*Factory, error) {
	if ref, dir := f.names(); file == "" || ref != "" || dir != "" {
		return f, nil
	}
	l, err := f.Learner(file)
	if err != nil {
		return f, nil
	}
	lab, note, err := classlab.Use(ctx, l.Requests(), l.Namespace)
	if err != nil {
		return nil, err
	}
	if lab == nil {
		if note == "" {
			return f, nil
		}
		g := f.WithLab("")
		g.notices = append(slices.Clone(f.notices), note)
		return g, nil
	}
	var g *Factory
	if lab.Builtin {
		g = f.WithLab(lab.Ref())
	} else {
		g = f.WithLabDir(lab.Dir)
	}
	g.classLab = lab
	g.notices = slices.Clone(f.notices)
	if note != "" {
		g.notices = append(g.notices, note)
	}
	return g, nil
}

// ClassLabNotes watches the class's lab this factory opened (nil
// without one): each new version installed, or refused.
func (f *Factory) ClassLabNotes(ctx context.Context, file string) <-chan classlab.LabNote {
	if f.classLab == nil {
		return nil
	}
	l, err := f.Learner(file)
	if err != nil {
		return nil
	}
	return classlab.WatchInstalled(ctx, l.Conn, l.Namespace, f.classLab)
}

// Identity is who the session publishes as: learner (the class file's
// slot; Join fills it in), the name the learner chose, the lab.
func (s *Session) Identity(learnerID, name string) class.Identity {
	return class.Identity{Learner: learnerID, Name: name, Lab: s.Lab.ID, LabVersion: s.Lab.Version, Labmate: s.f.version}
}

// Join starts publishing the session to the class of a --class
// kubeconfig (learner.Join). A file that cannot be used is a notice,
// never the end of the lab: the lab goes on without a class.
func (s *Session) Join(ctx context.Context, c ClassFlags, page bool) *learner.Publisher {
	if c.File == "" {
		return nil
	}
	bad := func(err error) *learner.Publisher {
		s.Notice(content.Msg("class.cli.class_file", "path", c.File, "err", learner.Explain(err)))
		return nil
	}
	l, err := s.f.Learner(c.File)
	if err != nil {
		return bad(err)
	}
	pub, err := learner.Join(ctx, learner.JoinConfig{Learner: l, Identity: s.Identity("", c.Name),
		Progress: s.File.Progress, Page: page, Tap: s.Run.Tap})
	if err != nil {
		return bad(err)
	}
	return pub
}

// PublishOnce sends one evaluation to the class (`check --class` without
// --watch), waiting at most learner.PublishWait for it to land; what
// kept it from landing is said on stderr, and never changes check's exit
// code. once publishes; it is handed the publisher and its context.
func (s *Session) PublishOnce(ctx context.Context, c ClassFlags, stderr io.Writer, once func(context.Context, *learner.Publisher) error) {
	ctx, cancel := context.WithTimeout(ctx, learner.PublishWait)
	defer cancel()
	pub := s.Join(ctx, c, false)
	if pub == nil {
		for _, w := range s.Warnings {
			if strings.Contains(w, c.File) {
				fmt.Fprintln(stderr, w)
			}
		}
		return
	}
	if err := once(ctx, pub); err != nil {
		fmt.Fprintln(stderr, err)
	}
}

// ClassLearnerID is the slot of the learner a class file names, for the
// preview; its error is Korean (an Exit with code 2).
func (f *Factory) ClassLearnerID(file string) (string, error) {
	if file == "" {
		return "", nil
	}
	l, err := f.Learner(file)
	if err != nil {
		return "", UsageErr("class.cli.class_file", "path", file, "err", learner.Explain(err))
	}
	return l.ID, nil
}
