//go:build !linux

package files

import "os"

// PollReason is "" where labmate cannot tell the filesystem; `--poll`
// still forces polling.
func PollReason(root string) string { return "" }

func inode(fi os.FileInfo) uint64 { return 0 }
