package class

import (
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
	// Err is the newest watch error (nil once the watch works again).
	Err error
	At  time.Time
	// Lab is the lab the class carries (its ID, version and digest, no
	// bytes; zero when the class carries none).
	Lab LabArchive
}

// Collector reads a class from its objects again and again (the board's
// live view), keeping each object's decoded record by resource version,
// so one learner's change costs one decode, not one per learner. A
// change of the class's lab empties it: whether a record's lab is known
// depends on it. The zero value is ready to use.
type Collector struct {
	classLab string
	entries  map[string]memoEntry
}

type memoEntry struct {
	rv  string
	rec Record
	ok  bool
}

// Collect is Collect with the records of unchanged objects kept from
// the collection before.
func (m *Collector) Collect(objs []*corev1.ConfigMap, lab string) Class {
	live := make(map[string]bool, len(objs))
	if cl := classLabOf(objs).ID; m.entries == nil || cl != m.classLab {
		m.classLab, m.entries = cl, map[string]memoEntry{}
	}
	read := func(o *corev1.ConfigMap, known func(string) bool) (Record, bool) {
		live[o.Name] = true
		if e, ok := m.entries[o.Name]; ok && e.rv == o.ResourceVersion && o.ResourceVersion != "" {
			return e.rec, e.ok
		}
		r, ok := readObject(o, known)
		m.entries[o.Name] = memoEntry{rv: o.ResourceVersion, rec: r, ok: ok}
		return r, ok
	}
	c := collect(objs, lab, read)
	for name := range m.entries {
		if !live[name] {
			delete(m.entries, name)
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
	known := knownLabs(c.Lab.ID)
	for _, o := range objs {
		if l, ok := isRecord(o, known); !ok || lab != "" && l != lab {
			continue
		}
		if r, ok := read(o, known); ok {
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
