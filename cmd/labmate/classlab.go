package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/labstore"
	"github.com/labhub/labmate/tui"
)

// The class's lab, both ways: the instructor packs a lab into the class
// (class init --lab, class lab push), a learner's --class fetches it,
// checks its digest, installs it with labstore and opens it.

// Bounds of a learner's fetch of the class's lab at start: with a copy
// installed from the class before, a class cluster that is away or slow
// costs a few seconds, then that copy opens; without one, the fetch may
// take as long as one class request may (a slow network, a lab near
// 1 MiB).
const (
	fetchTimeout     = 10 * time.Second
	fetchTimeoutKept = 4 * time.Second
)

// classLab is the class's lab a learner runs: where labstore installed
// it, and what the class said of it.
type classLab struct {
	Dir     string
	ID      string
	Version string
	Sum     string
	// source is labstore's Source of the class's copies ("class NS SERVER").
	source string
}

// classSource is the Source labstore records for a class's lab: the class
// is its namespace on its server.
func classSource(l class.Learner) string {
	return "class " + l.Namespace + " " + l.Config.Host
}

// useClassLab makes a --class run open the class's lab when the learner
// named none (--lab, --lab-dir; LABMATE_LAB is a default the class
// overrides): fetched and checked, installed, opened from the store.
// Without the class cluster (away, or a tampered object) the copy
// installed from this class before opens, with a notice. A class that
// carries no lab changes nothing. The error (Korean) ends the run: the
// class's lab is refused and none was installed before.
func (c *common) useClassLab(ctx context.Context, f classFlags) error {
	if f.File == "" || c.lab != "" || c.labDir != "" {
		return nil
	}
	l, err := class.LoadLearner(f.File)
	if err != nil {
		return nil // startClass says why, and the lab runs without a class
	}
	lab, note, err := fetchClassLab(ctx, l)
	if err != nil || lab == nil {
		return err
	}
	if note != "" {
		c.notices = append(c.notices, note)
	}
	c.labDir, c.classLab, c.resolved = lab.Dir, lab, nil
	return nil
}

// fetchClassLab fetches, checks and installs the class's lab, or falls
// back to the copy installed from it before. (nil, "", nil): the class
// carries no lab.
func fetchClassLab(ctx context.Context, l class.Learner) (*classLab, string, error) {
	src := classSource(l)
	cs, err := class.Clientset(l.Config)
	if err != nil {
		return nil, "", nil
	}
	timeout := fetchTimeout
	if _, ok := installedFromClass(src, ""); ok {
		timeout = fetchTimeoutKept
	}
	fctx, cancel := context.WithTimeout(ctx, timeout)
	a, err := class.FetchLab(fctx, cs, l.Namespace)
	cancel()
	if errors.Is(err, class.ErrNoLab) {
		return nil, "", nil
	}
	var refused string
	if err == nil {
		if have, ok := installedFromClass(src, a.Sum); ok {
			return have, "", nil // installed before: nothing to unpack
		}
		in, ierr := labstore.Install(a.Bytes, src)
		if ierr == nil {
			return &classLab{Dir: in.Dir, ID: in.ID, Version: in.Version, Sum: in.Sum, source: src}, "", nil
		}
		refused = content.Msg("class.lab.install_failed", "err", ierr)
	} else {
		refused = classLabErr(err)
	}
	kept, ok := installedFromClass(src, "")
	if !ok {
		return nil, "", envError{content.Msg("class.lab.none_kept", "why", refused)}
	}
	slog.Info("class lab: using the copy installed before", "dir", kept.Dir, "why", err)
	return kept, content.Msg("class.lab.kept", "why", refused, "id", kept.ID, "version", kept.Version), nil
}

// classLabErr words why the class's lab could not be had: the class
// package's own refusals are Korean; a connection error goes through
// kubeerr.
func classLabErr(err error) string {
	var tampered class.LabTampered
	var unreadable class.LabUnreadable
	var badID class.LabBadID
	var big class.LabTooBig
	if errors.As(err, &tampered) || errors.As(err, &unreadable) || errors.As(err, &badID) || errors.As(err, &big) {
		return err.Error()
	}
	return content.Msg("class.lab.unreachable", "err", classErr(err))
}

// installedFromClass is the copy of the class's lab installed last from
// this class (labstore's records name their source), of digest sum
// unless that is "".
func installedFromClass(src, sum string) (*classLab, bool) {
	all, err := labstore.List()
	if err != nil {
		return nil, false
	}
	var best *labstore.Installed
	for i := range all {
		in := &all[i]
		if in.Source == src && (sum == "" || in.Sum == sum) && (best == nil || in.At.After(best.At)) {
			best = in
		}
	}
	if best == nil {
		return nil, false
	}
	return &classLab{Dir: best.Dir, ID: best.ID, Version: best.Version, Sum: best.Sum, source: src}, true
}

// classLabNotes watches the class's lab this run opened (nil without one).
func (c *common) classLabNotes(ctx context.Context, f classFlags) <-chan tui.ClassLabNote {
	if c.classLab == nil {
		return nil
	}
	l, err := class.LoadLearner(f.File)
	if err != nil {
		return nil
	}
	return watchClassLab(ctx, l, c.classLab)
}

// watchClassLab watches the class's lab while the learner runs it: a new
// version is installed at once (so the next start opens it, even
// offline) and said in the TUI's step strip; a refused one is said too,
// and the learner keeps the copy they run.
func watchClassLab(ctx context.Context, l class.Learner, lab *classLab) <-chan tui.ClassLabNote {
	cs, err := class.Clientset(l.Config)
	if err != nil || lab == nil {
		return nil
	}
	out := make(chan tui.ClassLabNote, 1)
	notices := class.WatchLab(ctx, cs, l.Namespace, lab.Sum)
	go func() {
		defer close(out)
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class lab watch panicked", "panic", r)
			}
		}()
		for n := range notices {
			note := tui.ClassLabNote{Version: n.Lab.Version}
			if n.Err == nil && n.Lab.ID != lab.ID {
				n.Err = errors.New(content.Msg("class.lab.other_id", "id", n.Lab.ID, "have", lab.ID))
			}
			if n.Err == nil {
				if _, err := labstore.Install(n.Lab.Bytes, lab.source); err != nil {
					n.Err = err
				}
			}
			if n.Err != nil {
				slog.Warn("class lab refused", "err", n.Err)
				note = tui.ClassLabNote{Refused: true, Why: n.Err.Error()}
			}
			select {
			case out <- note:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// publishOnce sends one evaluation to the class (`check --class` without
// --watch) and waits, at most publishWait, for it to land; what kept it
// from landing is said on stderr, and never changes check's exit code.
func (s *setup) publishOnce(ctx context.Context, f classFlags, rep engine.Report, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, publishWait)
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
	rep.Ready = true // what the learner sees now, settled or not
	u := labrun.Next(nil, rep)
	pub.Publish(class.Update{Report: &u})
	for {
		select {
		case st := <-pub.Statuses():
			if st.State == class.Connected && !st.Pending {
				return
			}
			if st.State == class.Refused || st.State == class.Retrying {
				// One evaluation, one try: check is not a session that
				// waits for the class to come back.
				fmt.Fprintln(stderr, content.Msg("class.cli.publish_failed", "err", classErr(st.Err)))
				return
			}
		case <-ctx.Done():
			fmt.Fprintln(stderr, content.Msg("class.cli.publish_failed", "err", classErr(pub.Status().Err)))
			return
		}
	}
}

// publishWait bounds publishOnce.
const publishWait = 15 * time.Second

// sayClassLab words the class lab's notes on stderr, for `check --watch
// --class`, which has no step strip.
func sayClassLab(notes <-chan tui.ClassLabNote, stderr io.Writer) {
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
