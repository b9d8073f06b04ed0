package class

import (
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Class is the board's view of a class at one moment.
type Class struct {
	// Records has one record per record object, its learner and lab
	// from the object's name; those whose content is not believed carry
	// a Flag and no steps.
	Records []Record
	// Synced is true once the informer's first list arrived.
	Synced bool
	// Err is the newest error of the watch while the class is not
	// current (nil once it is again), and Link what it means.
	Err  error
	Link Link
	// StaleSince is when the records were last known current: the first
	// error of the outage (zero while the class is current).
	StaleSince time.Time
	At         time.Time
	// Lab is the lab the class names (its ID, version and digest, no
	// bytes; zero when it names none): one it carries, or one labmate
	// has built in (Builtin).
	Lab LabArchive
	// Info is the class object (the labs init made the class for, the
	// roster's names); HasInfo is false for a class made before there
	// was one.
	Info    Info
	HasInfo bool
}

// Link is the class cluster's connection as the board shows it.
type Link string

const (
	// Current: the watch works; the records are current.
	Current Link = ""
	// Lost: the class cluster does not answer (down, unreachable,
	// timing out); the records are as of StaleSince.
	Lost Link = "lost"
	// Denied: the class cluster answers and refuses these credentials
	// (401, 403): the wrong kubeconfig, or one without rights on the
	// class namespace. Retrying does not fix it.
	Denied Link = "denied"
)

// Collector reads a class from its objects again and again (the board's
// live view), keeping each object's decoded record by resource version,
// so one learner's change costs one decode, not one per learner. A
// change of the class's lab empties it: whether a record's lab is known
// depends on it. The zero value is ready to use.
type Collector struct {
	// Now is the clock of Shared marks (time.Now when nil).
	Now func() time.Time

	classLab string
	entries  map[string]memoEntry
	runs     map[string]*runs
}

type memoEntry struct {
	rv  string
	rec Record
	ok  bool
}

// SharedFor is how long a record stays Shared after two runs last took
// turns writing it.
const SharedFor = 10 * time.Minute

// runs are the labmate runs seen writing one record object, newest last
// (at most maxRuns), and when two of them last took turns.
type runs struct {
	seen   []string
	shared time.Time
}

const maxRuns = 4

// saw notes that run wrote the record now: a run seen before, other than
// the newest, writing again means two runs take turns (a restart makes a
// new run, never an old one again).
func (h *runs) saw(run string, now time.Time) {
	if run == "" || len(h.seen) > 0 && h.seen[len(h.seen)-1] == run {
		return
	}
	if i := slices.Index(h.seen, run); i >= 0 {
		h.shared = now
		h.seen = slices.Delete(h.seen, i, i+1)
	}
	h.seen = append(h.seen, run)
	if len(h.seen) > maxRuns {
		h.seen = h.seen[1:]
	}
}

// Collect is Collect with the records of unchanged objects kept from
// the collection before.
func (m *Collector) Collect(objs []*corev1.ConfigMap, lab string) Class {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	at := now()
	live := make(map[string]bool, len(objs))
	if cl := classLabOf(objs).ID; m.entries == nil || cl != m.classLab {
		m.classLab, m.entries = cl, map[string]memoEntry{}
	}
	if m.runs == nil {
		m.runs = map[string]*runs{}
	}
	read := func(o *corev1.ConfigMap, known func(string) bool) (Record, bool) {
		live[o.Name] = true
		e, ok := m.entries[o.Name]
		if !ok || e.rv != o.ResourceVersion || o.ResourceVersion == "" {
			r, ok := readObject(o, known)
			e = memoEntry{rv: o.ResourceVersion, rec: r, ok: ok}
			m.entries[o.Name] = e
			h := m.runs[o.Name]
			if h == nil {
				h = &runs{}
				m.runs[o.Name] = h
			}
			h.saw(r.Run, at)
		}
		r := e.rec
		if h := m.runs[o.Name]; h != nil && !h.shared.IsZero() && at.Sub(h.shared) < SharedFor {
			r.Shared = true
		}
		return r, e.ok
	}
	c := collect(objs, lab, read)
	for name := range m.entries {
		if !live[name] {
			delete(m.entries, name)
			delete(m.runs, name)
		}
	}
	return c
}

// Collect reads the record objects of a lab ("" for every lab) into a
// Class, sorted by learner then lab.
func Collect(objs []*corev1.ConfigMap, lab string) Class {
	return collect(objs, lab, readObject)
}

func collect(objs []*corev1.ConfigMap, lab string, read func(*corev1.ConfigMap, func(string) bool) (Record, bool)) Class {
	c := Class{Lab: classLabOf(objs)}
	c.Info, c.HasInfo = infoOf(objs)
	known := knownLabs(c.Lab.ID)
	for _, o := range objs {
		if l, ok := isRecord(o, known); !ok || lab != "" && l != lab {
			continue
		}
		if r, ok := read(o, known); ok {
			r.Listed = c.Info.Names[r.Learner]
			c.Records = append(c.Records, r)
		}
	}
	sort.Slice(c.Records, func(i, j int) bool {
		a, b := c.Records[i], c.Records[j]
		if a.Learner != b.Learner {
			return a.Learner < b.Learner
		}
		return a.Lab < b.Lab
	})
	return c
}
