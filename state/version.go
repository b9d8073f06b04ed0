package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Lab names the edition of a lab whose state a store keeps. Progress is
// kept by step number, and a number means a step only within one
// version, so each version has a file of its own (OpenLab), and each
// file records the step IDs its numbers stood for.
type Lab struct {
	ID string
	// Version is lab.toml's version; "" keeps the file of labmate
	// before versions (one per lab and root).
	Version string
	// Steps are the version's step IDs by number.
	Steps map[int]string
}

// OpenLab returns the store for one version of a lab at a root, under
// dir (Dir() when empty): <dir>/<id>@<version>/<root hash>/state.json.
// Until it is first written, it reads what the learner did in the
// version used last at this root (another version's file, or the file
// of labmate before versions), carried over by step ID: a step whose ID
// remains keeps its pass, hints, solution and remembered facts under its
// new number; a step gone is dropped (see File.CarriedFrom).
func OpenLab(dir string, lab Lab, root string) (*Store, error) {
	dir, err := orDir(dir)
	if err != nil {
		return nil, err
	}
	key := lab.ID
	if lab.Version != "" {
		key += "@" + lab.Version
	}
	return &Store{
		Path:    filepath.Join(dir, key, rootHash(root), "state.json"),
		lab:     lab.ID,
		root:    root,
		version: lab.Version,
		steps:   lab.Steps,
	}, nil
}

// rootHash names a root's directory in the state dir.
func rootHash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:6])
}

// Used reports whether labmate kept state for the lab at root, in any
// version.
func Used(dir, lab, root string) bool {
	return len(files(dir, lab, root)) > 0
}

// files are the state files of every version of lab at root.
func files(dir, lab, root string) []string {
	dir, err := orDir(dir)
	if err != nil {
		return nil
	}
	h := rootHash(root)
	out, _ := filepath.Glob(filepath.Join(dir, globEscape(lab)+"@*", h, "state.json"))
	if _, err := os.Stat(filepath.Join(dir, lab, h, "state.json")); err == nil {
		out = append(out, filepath.Join(dir, lab, h, "state.json"))
	}
	return out
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// previous is the state last written at this root for another version
// of the lab, or false when there is none (or none that reads).
func (s *Store) previous() (File, bool) {
	dir := filepath.Dir(filepath.Dir(filepath.Dir(s.Path)))
	var best string
	var bestAt time.Time
	for _, p := range files(dir, s.lab, s.root) {
		fi, err := os.Stat(p)
		if err != nil || p == s.Path || !fi.Mode().IsRegular() {
			continue
		}
		if best == "" || fi.ModTime().After(bestAt) {
			best, bestAt = p, fi.ModTime()
		}
	}
	if best == "" {
		return File{}, false
	}
	raw, err := readRegular(best)
	var f File
	if err != nil || json.Unmarshal(raw, &f) != nil || f.Version < 1 || f.Version > Version {
		return File{}, false
	}
	return f, true
}

// renumber moves f's progress and facts from the step numbers of from
// (number to ID) to those of s.steps, dropping steps whose ID is gone.
// A file that recorded no numbers was written before versions, for the
// lab as it is numbered now: it is taken as it is.
func (s *Store) renumber(f *File, from map[int]string) {
	if len(from) == 0 || len(s.steps) == 0 || maps.Equal(from, s.steps) {
		return
	}
	to := map[string]int{}
	for n, id := range s.steps {
		to[id] = n
	}
	moved := func(n int) (int, bool) {
		m, ok := to[from[n]]
		return m, ok && from[n] != ""
	}
	p := &f.Progress
	p.PassedAt = remap(p.PassedAt, moved)
	p.CaughtUpAt = remap(p.CaughtUpAt, moved)
	p.HintsSeen = remap(p.HintsSeen, moved)
	p.SolutionSeen = remap(p.SolutionSeen, moved)
	if p.CurrentStep > 0 {
		p.CurrentStep, _ = moved(p.CurrentStep)
	}
	for k := range f.Witness.Facts {
		if id, _, _ := strings.Cut(k, "/"); !hasKey(to, id) {
			delete(f.Witness.Facts, k)
		}
	}
}

// remap re-keys m by moved, dropping what does not move.
func remap[V any](m map[int]V, moved func(int) (int, bool)) map[int]V {
	if m == nil {
		return nil
	}
	out := map[int]V{}
	for n, v := range m {
		if to, ok := moved(n); ok {
			out[to] = v
		}
	}
	return out
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}
