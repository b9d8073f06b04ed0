package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// CopyTree copies src (a file, a symbolic link or a directory,
// recursively) to dst: regular files with their exact modes, read as
// Open reads them; symbolic links as links; directories with their exact
// modes, set once their contents are in. Nothing is written over: a file
// or link already at its place in dst is an error (a directory there is
// used). A FIFO, device or socket is refused, never opened. With sync,
// each file is on disk before CopyTree goes on (a backup taken before
// its original is replaced).
func CopyTree(src, dst string, sync bool) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	type dir struct {
		path string
		mode fs.FileMode
	}
	var dirs []dir
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			// Writable while its contents come in, whatever its mode.
			dirs = append(dirs, dir{to, info.Mode().Perm()})
			return os.MkdirAll(to, 0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case info.Mode().IsRegular():
			return copyFile(path, to, info.Mode().Perm(), sync)
		}
		return fmt.Errorf("%s: %s cannot be copied", path, info.Mode().Type())
	})
	if err != nil {
		return err
	}
	for _, d := range slices.Backward(dirs) {
		if err := os.Chmod(d.path, d.mode); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies the regular file src to dst, which must not exist,
// with mode exactly, and with sync waits until it is on disk.
func copyFile(src, dst string, mode fs.FileMode, sync bool) error {
	in, err := Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(mode); err != nil {
		out.Close()
		return err
	}
	if sync {
		if err := out.Sync(); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}
