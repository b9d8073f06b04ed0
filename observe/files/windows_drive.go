package files

import (
	"io"
	"path/filepath"
	"strings"
)

// Mount is the mount a path lives on, as mountinfo lists it.
type Mount struct {
	Point, FSType, Source, Options string
}

// WindowsDrive says the mount is a Windows drive under WSL, where file
// events do not arrive for saves made from Windows (microsoft/WSL#678;
// WSL2's /mnt/c is 9p): drvfs (WSL1, and the type WSL2 mounts by hand
// name), 9p whose options name the drvfs share (WSL2's automount:
// aname=drvfs), or virtiofs of a drive (WSL2 with virtiofs on, source
// "C:\").
func (m Mount) WindowsDrive() bool {
	switch m.FSType {
	case "drvfs":
		return true
	case "9p":
		return strings.Contains(m.Options, "aname=drvfs")
	case "virtiofs":
		return len(m.Source) >= 2 && m.Source[1] == ':'
	}
	return false
}

// MountOf is the mount path lives on, read from a mountinfo table
// (/proc/self/mountinfo): the one with the longest mount point that
// holds path. ok is false when none does or the table cannot be read.
func MountOf(table io.Reader, path string) (m Mount, ok bool) {
	mounts, err := readMounts(table)
	if err != nil {
		return Mount{}, false
	}
	path = filepath.Clean(path)
	for _, c := range mounts {
		if onMount(path, c.Point) && len(c.Point) >= len(m.Point) {
			m, ok = c, true
		}
	}
	return m, ok
}

func onMount(path, point string) bool {
	if point == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == point || strings.HasPrefix(path, point+"/")
}
