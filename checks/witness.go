package checks

import "time"

// Witness holds facts of the past that labmate itself saw and persisted
// (for example "pod gpu-lab/cuda-probe was Unschedulable with message M"),
// so that a later step's change, or a restart, does not erase the evidence
// an earlier step passed on.
type Witness struct {
	Facts map[string]WitnessFact `json:"facts,omitempty"`
}

// WitnessFact is one remembered fact. UID ties it to the object it was seen
// on, so a deleted and recreated object does not inherit it.
type WitnessFact struct {
	Value string    `json:"value"`
	UID   string    `json:"uid,omitempty"`
	Seen  time.Time `json:"seen"`
}

// Get returns a fact and whether it is known.
func (w *Witness) Get(key string) (WitnessFact, bool) {
	if w == nil || w.Facts == nil {
		return WitnessFact{}, false
	}
	f, ok := w.Facts[key]
	return f, ok
}

// Set records a fact; it returns true when that changed anything.
func (w *Witness) Set(key string, f WitnessFact) bool {
	if w.Facts == nil {
		w.Facts = map[string]WitnessFact{}
	}
	if old, ok := w.Facts[key]; ok && old.Value == f.Value && old.UID == f.UID {
		return false
	}
	w.Facts[key] = f
	return true
}

// Forget removes a fact; it returns true when it was there.
func (w *Witness) Forget(key string) bool {
	if _, ok := w.Facts[key]; !ok {
		return false
	}
	delete(w.Facts, key)
	return true
}
