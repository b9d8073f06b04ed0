package labstore

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// unpack writes the archive's files under dst (which must not exist),
// refusing, before anything of it is used, an entry whose name is
// absolute, climbs out with "..", or is not a clean path; a symlink,
// hard link, device or FIFO; a file over MaxFileSize, a lab over
// MaxTotalSize, more than MaxEntries entries, and a name given twice.
// Nothing is written outside dst: names are checked before joining, and
// no link is ever created that a later entry could follow.
func unpack(archive []byte, dst string) error {
	if len(archive) > MaxArchiveSize {
		return &Refusal{Reason: TooBig, Size: int64(len(archive)), Limit: MaxArchiveSize}
	}
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return &Refusal{Reason: NotArchive}
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	seen := map[string]bool{}
	var total int64
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &Refusal{Reason: NotArchive}
		}
		if n >= MaxEntries {
			return &Refusal{Reason: TooMany, Size: int64(n + 1), Limit: MaxEntries}
		}
		name, err := entryName(hdr)
		if err != nil {
			return err
		}
		if seen[name] {
			return &Refusal{Reason: Duplicate, Entry: name}
		}
		seen[name] = true
		if hdr.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(filepath.Join(dst, filepath.FromSlash(name)), 0o755); err != nil {
				return &Refusal{Reason: Duplicate, Entry: name}
			}
			continue
		}
		if hdr.Size > MaxFileSize {
			return &Refusal{Reason: TooBig, Entry: name, Size: hdr.Size, Limit: MaxFileSize}
		}
		if total += hdr.Size; total > MaxTotalSize {
			return &Refusal{Reason: TooBig, Size: total, Limit: MaxTotalSize}
		}
		if err := writeEntry(dst, name, hdr.Size, tr); err != nil {
			return err
		}
	}
}

// entryName is the entry's name once proven safe: a regular file or a
// directory, named by a clean relative path ("./" and a directory's
// trailing "/" allowed).
func entryName(hdr *tar.Header) (string, error) {
	raw := hdr.Name
	name := strings.TrimSuffix(strings.TrimPrefix(raw, "./"), "/")
	if strings.HasPrefix(raw, "/") || filepath.IsAbs(raw) || strings.ContainsAny(raw, "\\\x00") ||
		!fs.ValidPath(name) || name == "." {
		return "", &Refusal{Reason: UnsafePath, Entry: raw}
	}
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeDir:
		return name, nil
	}
	return "", &Refusal{Reason: Special, Entry: raw}
}

// writeEntry writes one file of size bytes from r at name under dst.
// O_EXCL: an entry never replaces what is there.
func writeEntry(dst, name string, size int64, r io.Reader) error {
	p := filepath.Join(dst, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return &Refusal{Reason: Duplicate, Entry: name}
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return &Refusal{Reason: Duplicate, Entry: name}
	}
	_, err = io.CopyN(f, r, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &Refusal{Reason: NotArchive}
	}
	return nil
}
