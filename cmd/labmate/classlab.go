package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
)

// useClassLab makes a --class run open the class's lab when the learner
// named none (--lab, --lab-dir; LABMATE_LAB is a default the class
// overrides): fetched and checked, installed, opened from the store
// (class.UseLab). A class that carries no lab changes nothing. The error
// (Korean) ends the run.
func (c *common) useClassLab(ctx context.Context, f classFlags) error {
	if f.File == "" || c.lab != "" || c.labDir != "" {
		return nil
	}
	l, err := class.LoadLearner(f.File)
	if err != nil {
		return nil // startClass says why, and the lab runs without a class
	}
	lab, note, err := class.UseLab(ctx, l)
	if err != nil || lab == nil {
		return err
	}
	if note != "" {
		c.notices = append(c.notices, note)
	}
	c.labDir, c.classLab, c.resolved = lab.Dir, lab, nil
	return nil
}

// buildForClass is build for a run that may be a class's (--class): the
// class's lab first (useClassLab), then the run of the lab chosen.
func (c *common) buildForClass(ctx context.Context, f classFlags) (*setup, error) {
	if err := c.useClassLab(ctx, f); err != nil {
		return nil, err
	}
	return c.build()
}

// classLabNotes watches the class's lab this run opened (nil without one).
func (c *common) classLabNotes(ctx context.Context, f classFlags) <-chan class.LabNote {
	if c.classLab == nil {
		return nil
	}
	l, err := class.LoadLearner(f.File)
	if err != nil {
		return nil
	}
	return class.WatchInstalled(ctx, l, c.classLab)
}

// publishOnce sends one evaluation to the class (`check --class` without
// --watch), waiting at most class.PublishWait for it to land; what kept
// it from landing is said on stderr, and never changes check's exit code.
// once publishes; it is handed the publisher and its context.
func (s *setup) publishOnce(ctx context.Context, f classFlags, stderr io.Writer, once func(context.Context, *class.Publisher) error) {
	ctx, cancel := context.WithTimeout(ctx, class.PublishWait)
	defer cancel()
	pub := s.startClass(ctx, f, false)
	if pub == nil {
		for _, w := range s.warnings {
			if strings.Contains(w, f.File) {
				fmt.Fprintln(stderr, w)
			}
		}
		return
	}
	if err := once(ctx, pub); err != nil {
		fmt.Fprintln(stderr, err)
	}
}

// sayClassLab words the class lab's notes on stderr, for `check --watch
// --class`, which has no step strip.
func sayClassLab(notes <-chan class.LabNote, stderr io.Writer) {
	if notes == nil {
		return
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class lab notes panicked", "panic", r)
			}
		}()
		for n := range notes {
			if n.Refused {
				fmt.Fprintln(stderr, n.Why)
				continue
			}
			fmt.Fprintln(stderr, content.Msg("class.lab.toast_new", "version", n.Version))
		}
	}()
}
