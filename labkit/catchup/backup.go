package catchup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/labhub/labmate/internal/safefile"
)

// existing are the paths (lab-relative, each once) the learner has under
// root now: files, directories, symbolic links. Anything else there (a
// FIFO, a device) cannot be kept, so the catch-up is refused.
func existing(root string, paths []string) ([]string, error) {
	var out []string
	for _, rel := range paths {
		if slices.Contains(out, rel) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, refuse("catchup.unreadable", "path", rel, "err", err)
		case !fi.Mode().IsRegular() && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0:
			return nil, refuse("catchup.odd_file", "path", rel)
		}
		out = append(out, rel)
	}
	return out, nil
}

// backUp makes the dated backup folder (a new one: a folder of that name
// already there gets a suffix, never written into) and copies every
// learner's file the plan keeps into it, each at its lab-relative path,
// before anything changes. It returns the paths the plan may write or
// remove.
func (p *Plan) backUp() (planned map[string]bool, err error) {
	planned = map[string]bool{}
	var keep []string
	for _, s := range p.Steps {
		if s.Keep {
			continue
		}
		for _, f := range append(slices.Clone(s.Write), s.Remove...) {
			planned[f] = true
		}
		for _, f := range s.Backup {
			if !slices.Contains(keep, f) {
				keep = append(keep, f)
			}
		}
	}
	if len(keep) == 0 {
		return planned, nil
	}
	base := p.Backup
	for i := 2; ; i++ {
		err := os.Mkdir(p.Backup, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return nil, refuse("catchup.backup_failed", "dir", p.Backup, "err", err)
		}
		p.Backup = fmt.Sprintf("%s-%d", base, i)
	}
	for _, rel := range keep {
		if err := safefile.CopyTree(filepath.Join(p.o.Root, filepath.FromSlash(rel)), filepath.Join(p.Backup, filepath.FromSlash(rel)), true); err != nil {
			return nil, refuse("catchup.backup_failed", "dir", p.Backup, "err", err)
		}
	}
	return planned, nil
}
