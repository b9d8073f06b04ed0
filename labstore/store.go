package labstore

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/dirs"
	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/internal/safefile"
	"github.com/labhub/labmate/labkit"
)

// Installed is one installed lab: an ID at one version, where its files
// are, the sha256 of the archive it came from and where that came from
// (a directory, an archive's path, a class).
type Installed struct {
	ID      string    `json:"id"`
	Version string    `json:"version"`
	Title   string    `json:"title"`
	Dir     string    `json:"-"`
	Sum     string    `json:"sha256"`
	Source  string    `json:"source"`
	At      time.Time `json:"installed_at"`
	// Current marks the version of its ID that opens by default: the one
	// installed last.
	Current bool `json:"-"`
	// Shadowed says labmate has an embedded lab of the same ID, which is
	// the one `--lab ID` opens (`--lab ID@installed` opens this one).
	Shadowed bool `json:"-"`
	// Replaced is the sum of the copy of the same ID and version that
	// Install replaced ("" when none was there or it was the same).
	Replaced string `json:"-"`
}

// Open compiles the installed lab (its declarative checks only).
func (in Installed) Open() (*labkit.Lab, error) { return labkit.OpenDir(in.Dir) }

// Root is the directory of the installed labs:
// $XDG_DATA_HOME/labmate/labs, by default ~/.local/share/labmate/labs.
func Root() (string, error) {
	d, err := dirs.Data()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "labs"), nil
}

// recordName is the file beside a version's directory holding its
// Installed record. It starts with a dot, as no version can.
func recordName(version string) string { return "." + version + ".json" }

// InstallDir packs the lab in dir and installs the archive.
func InstallDir(dir, source string) (*Installed, error) {
	archive, err := Pack(dir)
	if err != nil {
		return nil, err
	}
	return Install(archive, source)
}

// moveIn moves a new copy into place; a test makes it fail.
var moveIn = os.Rename

// Install unpacks the archive into a temporary directory of the store
// (unpack's refusals), proves it loads as a lab (Check), and moves it to
// <Root>/<id>/<version>/ under the store's lock, its record beside it. A
// copy of the same ID and version is replaced only once the new one and
// its record are in place (else it stays); other versions stay.
func Install(archive []byte, source string) (*Installed, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	sweepUnpacked(root)
	tmp, err := os.MkdirTemp(root, ".unpack-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	unpacked := filepath.Join(tmp, "lab")
	if err := unpack(archive, unpacked); err != nil {
		return nil, err
	}
	kit, err := Check(unpacked)
	if err != nil {
		return nil, err
	}
	in := &Installed{ID: kit.ID(), Version: kit.Text.Version, Title: kit.Text.Title,
		Sum: Sum(archive), Source: source, At: time.Now().UTC()}
	err = locked(root, func() error {
		idDir := filepath.Join(root, in.ID)
		in.Dir = filepath.Join(idDir, in.Version)
		if old, err := readRecord(idDir, in.Version); err == nil && old.Sum != in.Sum {
			in.Replaced = old.Sum
		}
		if err := os.MkdirAll(idDir, 0o755); err != nil {
			return err
		}
		// The same version again: the old copy is set aside, not removed,
		// until the new one and its record are in place, and put back if
		// either fails, so a copy and its record always agree.
		aside := filepath.Join(tmp, "old")
		hadOld := true
		if err := os.Rename(in.Dir, aside); errors.Is(err, fs.ErrNotExist) {
			hadOld = false
		} else if err != nil {
			return err
		}
		putBack := func(err error) error {
			if !hadOld {
				return err
			}
			if rerr := os.Rename(aside, in.Dir); rerr != nil {
				return errors.Join(err, rerr)
			}
			return err
		}
		if err := moveIn(unpacked, in.Dir); err != nil {
			return putBack(err)
		}
		raw, err := json.MarshalIndent(in, "", "  ")
		if err == nil {
			err = lockfile.WriteAtomic(filepath.Join(idDir, recordName(in.Version)), append(raw, '\n'), 0o644)
		}
		if err != nil {
			if rerr := os.RemoveAll(in.Dir); rerr != nil {
				return errors.Join(err, rerr)
			}
			return putBack(err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	in.Current = true
	in.Shadowed = embedded(in.ID)
	return in, nil
}

// sweepUnpacked removes what an install cut short (a crash, a kill)
// left: an install takes seconds, so one an hour old is nobody's.
func sweepUnpacked(root string) {
	olds, _ := filepath.Glob(filepath.Join(root, ".unpack-*"))
	for _, p := range olds {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Hour {
			_ = os.RemoveAll(p)
		}
	}
}

// List is every installed lab, by ID, each ID's versions in the order
// they were installed; the last of each is Current.
func List() ([]Installed, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	ids, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Installed
	for _, d := range ids {
		if d.IsDir() && ValidID(d.Name()) {
			out = append(out, versions(filepath.Join(root, d.Name()))...)
		}
	}
	return out, nil
}

// versions are the installed versions of one ID (a directory of the
// store), oldest first, the newest Current.
func versions(idDir string) []Installed {
	entries, _ := os.ReadDir(idDir)
	var out []Installed
	for _, e := range entries {
		if !e.IsDir() || !content.ValidVersion(e.Name()) {
			continue
		}
		in, err := readRecord(idDir, e.Name())
		if err != nil {
			continue // an install cut short: no record, no lab
		}
		in.ID, in.Version, in.Dir = filepath.Base(idDir), e.Name(), filepath.Join(idDir, e.Name())
		in.Shadowed = embedded(in.ID)
		out = append(out, in)
	}
	slices.SortStableFunc(out, func(a, b Installed) int { return a.At.Compare(b.At) })
	if len(out) > 0 {
		out[len(out)-1].Current = true
	}
	return out
}

func readRecord(idDir, version string) (Installed, error) {
	var in Installed
	raw, err := os.ReadFile(filepath.Join(idDir, recordName(version)))
	if err == nil {
		err = json.Unmarshal(raw, &in)
	}
	return in, err
}

// Find is the installed lab named by ref: "ID" is its current version,
// "ID@VERSION" that version.
func Find(ref string) (Installed, error) {
	id, version, _ := strings.Cut(ref, "@")
	if !ValidID(id) {
		return Installed{}, &Refusal{Reason: NotInstalled, Lab: ref}
	}
	all, err := List()
	if err != nil {
		return Installed{}, err
	}
	for _, in := range all {
		if in.ID == id && (version == "" && in.Current || in.Version == version) {
			return in, nil
		}
	}
	return Installed{}, &Refusal{Reason: NotInstalled, Lab: ref}
}

// Remove deletes an installed lab: every version of "ID", or one with
// "ID@VERSION".
func Remove(ref string) error {
	_, err := Uninstall(ref)
	return err
}

// Uninstall is Remove, returning what it removed.
func Uninstall(ref string) ([]Installed, error) {
	id, version, one := strings.Cut(ref, "@")
	root, err := Root()
	if err != nil {
		return nil, err
	}
	if !ValidID(id) || one && !content.ValidVersion(version) {
		return nil, &Refusal{Reason: NotInstalled, Lab: ref}
	}
	var gone []Installed
	err = locked(root, func() error {
		idDir := filepath.Join(root, id)
		for _, in := range versions(idDir) {
			if one && in.Version != version {
				continue
			}
			if err := os.Remove(filepath.Join(idDir, recordName(in.Version))); err != nil {
				return err
			}
			if err := os.RemoveAll(in.Dir); err != nil {
				return err
			}
			gone = append(gone, in)
		}
		if len(gone) == 0 {
			return &Refusal{Reason: NotInstalled, Lab: ref}
		}
		_ = os.Remove(idDir) // only once it is empty
		return nil
	})
	return gone, err
}

// locked runs fn holding the store's lock.
func locked(root string, fn func() error) error {
	unlock, err := lockfile.Lock(context.Background(), filepath.Join(root, ".lock"), lockfile.Options{})
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// embedded reports whether labmate has a lab of this ID built in.
func embedded(id string) bool { return slices.Contains(content.IDs(), id) }

// InstallFile installs the archive in the file at path (its absolute
// path recorded as the source). A FIFO or device is refused, never
// waited on; an archive over MaxArchiveSize is refused unread.
func InstallFile(path string) (*Installed, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f, err := safefile.Open(abs)
	if errors.Is(err, safefile.ErrNotRegular) {
		return nil, &Refusal{Reason: Special, Entry: path}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Refusal{Reason: Missing, Entry: path}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	archive, err := io.ReadAll(io.LimitReader(f, MaxArchiveSize+1))
	if err != nil {
		return nil, err
	}
	return Install(archive, abs)
}
