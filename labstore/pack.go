// Package labstore keeps the labs a learner installed without rebuilding
// labmate: `lab pack` turns a lab directory into a deterministic .tar.gz,
// `lab install` unpacks one safely, proves it loads as a lab and moves it
// under $XDG_DATA_HOME/labmate/labs/<id>/<version>/ with its source and
// sha256 beside it; `lab list` and `lab remove` read and change that
// store. A lab from here runs its declarative checks only: it brings no
// Go code, so a lab whose steps need Go is refused.
package labstore

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
)

// Limits of a lab archive, the same for packing and installing so a lab
// that packs always installs. The shipped labs are under 400 KiB whole.
const (
	// MaxFileSize caps one file of a lab.
	MaxFileSize = 4 << 20
	// MaxTotalSize caps all files of a lab together, unpacked.
	MaxTotalSize = 32 << 20
	// MaxEntries caps the number of entries of an archive.
	MaxEntries = 4096
	// MaxArchiveSize caps an archive as read (compressed).
	MaxArchiveSize = 16 << 20
)

// packTime is every entry's modification time: the archive depends on
// the lab's content only, never on when its files were written.
var packTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// skipped are directories of version control, never part of a lab.
var skipped = []string{".git", ".hg", ".svn"}

// Pack reads the lab in dir, refuses it unless it loads as a lab that
// runs from outside the binary (Check), and returns its archive: a
// .tar.gz of its regular files in sorted order, each with mode 0644,
// uid and gid 0 and one fixed time, gzip with no name or time, so the
// same lab gives the same bytes wherever it lies.
func Pack(dir string) ([]byte, error) {
	archive, _, err := PackLab(dir)
	return archive, err
}

// PackLab is Pack that also returns the lab it packed, as Check compiled
// it (its ID and version name the archive).
func PackLab(dir string) ([]byte, *labkit.Lab, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, nil, &Refusal{Reason: Missing, Entry: dir}
	}
	fsys := os.DirFS(dir)
	// Special files first: loading the lab must never open a FIFO.
	names, err := labFiles(fsys)
	if err != nil {
		return nil, nil, err
	}
	lab, err := Check(dir)
	if err != nil {
		return nil, nil, err
	}
	archive, err := packFiles(fsys, names)
	return archive, lab, err
}

// PackEmbedded packs a lab built into labmate, byte for byte as Pack
// packs its directory content/labs/<id>: what a class ships when its
// lab is one of labmate's own. A lab whose steps need Go is refused as
// Pack refuses it: where it is installed, only declarative checks run.
func PackEmbedded(id string) ([]byte, error) {
	l, err := content.Load(id)
	if err != nil {
		return nil, err
	}
	if steps := goSteps(l); len(steps) > 0 {
		return nil, &Refusal{Reason: GoChecks, Lab: l.ID, Steps: steps}
	}
	return packFS(l.FS)
}

// packFS writes the archive of the files of fsys.
func packFS(fsys fs.FS) ([]byte, error) {
	names, err := labFiles(fsys)
	if err != nil {
		return nil, err
	}
	return packFiles(fsys, names)
}

// Sum is the archive's sha256, in hex: what `lab pack` prints and what
// an installed lab records.
func Sum(archive []byte) string {
	s := sha256.Sum256(archive)
	return hex.EncodeToString(s[:])
}

// labFiles are the names of the regular files of fsys, sorted. A
// symlink, device or other special file is refused (it would not
// survive Install); so are more than MaxEntries files.
func labFiles(fsys fs.FS) ([]string, error) {
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && slices.Contains(skipped, d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return &Refusal{Reason: Special, Entry: p}
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(names) > MaxEntries {
		return nil, &Refusal{Reason: TooMany, Size: int64(len(names)), Limit: MaxEntries}
	}
	slices.Sort(names)
	return names, nil
}

// packFiles writes the archive of the named files of fsys, refusing a
// file or a lab beyond the limits.
func packFiles(fsys fs.FS, names []string) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	var total int64
	for _, name := range names {
		data, err := readCapped(fsys, name)
		if err != nil {
			return nil, err
		}
		if total += int64(len(data)); total > MaxTotalSize {
			return nil, &Refusal{Reason: TooBig, Size: total, Limit: MaxTotalSize}
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: path.Clean(name), Size: int64(len(data)),
			Mode: 0o644, ModTime: packTime}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readCapped reads one file of a lab, refusing one over MaxFileSize.
func readCapped(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, &Refusal{Reason: TooBig, Entry: filepath.ToSlash(name), Size: int64(len(data)), Limit: MaxFileSize}
	}
	return data, nil
}
