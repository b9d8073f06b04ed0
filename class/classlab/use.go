package classlab

// The learner's side of the class's lab: a --class run fetches it,
// checks its digest, installs it with labstore and opens it from there;
// while the learner runs it, a new version is installed as it comes.

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labstore"
)

// Bounds of a learner's fetch of the class's lab at start: with a copy
// installed from the class before, a class cluster that is away or slow
// costs a few seconds, then that copy opens; without one, the fetch may
// take as long as one class request may (a slow network, a lab near
// 1 MiB).
const (
	FetchTimeout     = 10 * time.Second
	FetchTimeoutKept = 4 * time.Second
)

// InstalledLab is the class's lab as a learner runs it: where labstore
// installed it, and what the class said of it.
type InstalledLab struct {
	Dir     string
	ID      string
	Version string
	Sum     string
	// Source is labstore's Source of the class's copies (LabSource).
	Source string
}

// LabNote is what the class said of its lab while the learner runs it:
// a new version installed (the next start opens it), or one refused
// (Why, in Korean; the learner keeps the copy they run).
type LabNote struct {
	Version string
	Refused bool
	Why     string
}

// Source is the Source labstore records for a class's lab: the class
// is its namespace on its server.
func Source(conn kube.Conn, ns string) string {
	return "class " + ns + " " + conn.Host()
}

// Use fetches, checks and installs the class's lab, or falls back to
// the copy installed from it before, with a notice (Korean) saying why.
// (nil, "", nil): the class carries no lab, or the class file reaches
// no server. The error (Korean) ends the run: the class's lab is refused
// and none was installed before.
func Use(ctx context.Context, conn kube.Conn, ns string) (lab *InstalledLab, notice string, err error) {
	src := Source(conn, ns)
	cs, err := conn.Typed()
	if err != nil {
		return nil, "", nil
	}
	timeout := FetchTimeout
	if _, ok := InstalledFrom(src, ""); ok {
		timeout = FetchTimeoutKept
	}
	fctx, cancel := context.WithTimeout(ctx, timeout)
	a, err := FetchLab(fctx, cs, ns)
	cancel()
	if errors.Is(err, class.ErrNoLab) {
		return nil, "", nil
	}
	var refused string
	if err == nil {
		if have, ok := InstalledFrom(src, a.Sum); ok {
			return have, "", nil // installed before: nothing to unpack
		}
		in, ierr := labstore.Install(a.Bytes, src)
		if ierr == nil {
			return &InstalledLab{Dir: in.Dir, ID: in.ID, Version: in.Version, Sum: in.Sum, Source: src}, "", nil
		}
		refused = content.Msg("class.lab.install_failed", "err", ierr)
	} else {
		refused = Explain(err)
	}
	kept, ok := InstalledFrom(src, "")
	if !ok {
		return nil, "", errors.New(content.Msg("class.lab.none_kept", "why", refused))
	}
	slog.Info("class lab: using the copy installed before", "dir", kept.Dir, "why", err)
	return kept, content.Msg("class.lab.kept", "why", refused, "id", kept.ID, "version", kept.Version), nil
}

// Explain words why the class's lab could not be had: this package's own
// refusals are Korean; a connection error goes through Explain.
func Explain(err error) string {
	var tampered class.LabTampered
	var unreadable class.LabUnreadable
	var badID class.LabBadID
	var big class.LabTooBig
	if errors.As(err, &tampered) || errors.As(err, &unreadable) || errors.As(err, &badID) || errors.As(err, &big) {
		return err.Error()
	}
	return content.Msg("class.lab.unreachable", "err", kube.Explain(err))
}

// InstalledFrom is the copy of the class's lab installed last from the
// class src (labstore's records name their source), of digest sum
// unless that is "".
func InstalledFrom(src, sum string) (*InstalledLab, bool) {
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
	return &InstalledLab{Dir: best.Dir, ID: best.ID, Version: best.Version, Sum: best.Sum, Source: src}, true
}

// WatchInstalled watches the class's lab while the learner runs lab: a
// new version is installed at once (so the next start opens it, even
// offline) and noted; a refused one is noted too, and the learner keeps
// the copy they run. The channel closes when ctx ends (nil when the
// class file reaches no server).
func WatchInstalled(ctx context.Context, conn kube.Conn, ns string, lab *InstalledLab) <-chan LabNote {
	cs, err := conn.Typed()
	if err != nil || lab == nil {
		return nil
	}
	out := make(chan LabNote, 1)
	notices := WatchLab(ctx, cs, ns, lab.Sum)
	go func() {
		defer close(out)
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class lab watch panicked", "panic", r)
			}
		}()
		for n := range notices {
			note := LabNote{Version: n.Lab.Version}
			if n.Err == nil && n.Lab.ID != lab.ID {
				n.Err = errors.New(content.Msg("class.lab.other_id", "id", n.Lab.ID, "have", lab.ID))
			}
			if n.Err == nil {
				if _, err := labstore.Install(n.Lab.Bytes, lab.Source); err != nil {
					n.Err = err
				}
			}
			if n.Err != nil {
				slog.Warn("class lab refused", "err", n.Err)
				note = LabNote{Refused: true, Why: n.Err.Error()}
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
