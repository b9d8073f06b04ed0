package labrun

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/labhub/labmate/content"
)

// LayOut lays the lab's start/ files (lab.toml's `start`) out in root:
// the files a lab root starts with. It creates only what does not exist
// yet, never replacing or changing a file that is there (the learner's
// own work, or a start file they edited), and returns the files it
// created, lab-relative. This is the one place labmate writes into a lab
// root: every live run lays it out before it starts watching (New), so
// the TUI, check and a proof see the same start. A root that is not
// there yet is left alone: only the learner makes it (labroot), and the
// next run lays the start out in it.
func LayOut(lab *content.Lab, root string) ([]string, error) {
	if lab == nil || lab.Start == "" || root == "" {
		return nil, nil
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, nil
	}
	var (
		made []string
		errs []error
	)
	walkErr := fs.WalkDir(lab.FS, lab.Start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, lab.Start), "/")
		dst := filepath.Join(root, filepath.FromSlash(rel))
		if d.IsDir() {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				// A file of the learner's where a start directory goes:
				// what would go in it is not laid out; the rest is.
				errs = append(errs, err)
				return fs.SkipDir
			}
			return nil
		}
		b, err := fs.ReadFile(lab.FS, p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if info, err := d.Info(); err == nil && info.Mode().Perm()&0o111 != 0 {
			mode = 0o755
		}
		created, err := createNew(dst, b, mode)
		if created {
			made = append(made, path.Clean(rel))
		}
		if err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	return made, errors.Join(append(errs, walkErr)...)
}

// createNew writes b to a file at dst that must not exist yet (O_EXCL:
// not even as a dangling symbolic link), reporting whether it made one.
func createNew(dst string, b []byte, mode os.FileMode) (bool, error) {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return true, err
	}
	return true, f.Close()
}
