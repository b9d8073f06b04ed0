package files

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// smb2SuperMagic is SMB2_SUPER_MAGIC from linux/magic.h (the kernel's
// SMB3 client, "smb3" mounts), which x/sys/unix does not name.
const smb2SuperMagic = 0xfe534d42

// noEvents are the filesystems on which inotify does not report changes
// made by another machine or layer. virtiofs reports FUSE's magic.
var noEvents = map[uint32]string{
	unix.NFS_SUPER_MAGIC:  "nfs",
	unix.SMB_SUPER_MAGIC:  "smb",
	unix.CIFS_SUPER_MAGIC: "cifs",
	smb2SuperMagic:        "smb2",
	unix.V9FS_MAGIC:       "9p",
	unix.FUSE_SUPER_MAGIC: "fuse",
}

// PollReason names the filesystem the lab root (or its nearest existing
// parent) lives on when file events cannot be trusted there, and returns
// "" otherwise: by the filesystem's magic, or by the mount table for a
// Windows drive under WSL (Mount.WindowsDrive), whatever its magic.
func PollReason(root string) string {
	dir := root
	for {
		var st unix.Statfs_t
		err := unix.Statfs(dir, &st)
		if err == nil {
			if fs := noEvents[uint32(st.Type)]; fs != "" {
				return fs
			}
			return windowsDrive(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
