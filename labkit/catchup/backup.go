package catchup

import (
	"errors"
	"fmt"
	"io"
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
		if err := copyTree(filepath.Join(p.o.Root, filepath.FromSlash(rel)), filepath.Join(p.Backup, filepath.FromSlash(rel))); err != nil {
			return nil, refuse("catchup.backup_failed", "dir", p.Backup, "err", err)
		}
	}
	return planned, nil
}

// copyTree copies a file, a symbolic link (as a link) or a directory
// (recursively) to dst, keeping modes; a FIFO or device inside a
// directory is refused, never opened.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, fi.Mode().Perm()|0o700)
		case fi.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			return os.Symlink(link, to)
		case fi.Mode().IsRegular():
			return copyFile(path, to, fi.Mode().Perm())
		}
		return errors.New(path)
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := safefile.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	// O_EXCL: a backup is never written over.
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
