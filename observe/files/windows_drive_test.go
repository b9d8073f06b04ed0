//go:build linux

package files

import (
	"strings"
	"testing"
)

func TestMountOfFindsTheWindowsDrive(t *testing.T) {
	table := `61 1 8:32 / / rw,relatime - ext4 /dev/sdc rw
81 61 0:52 / /mnt/c rw,noatime - 9p C:\134 rw,dirsync,aname=drvfs;path=C:\;uid=1000
90 61 0:60 / /mnt/wslg rw - 9p none rw,aname=wslg
`
	for path, want := range map[string]bool{"/mnt/c/labs/x": true, "/mnt/c": true, "/home/a": false, "/mnt/wslg/x": false, "/mnt/cc": false} {
		m, ok := MountOf(strings.NewReader(table), path)
		if !ok || m.WindowsDrive() != want {
			t.Errorf("%s: %+v %v, want Windows drive %v", path, m, ok, want)
		}
	}
	if _, ok := MountOf(strings.NewReader("garbage\n"), "/x"); ok {
		t.Error("a table that does not parse gave a mount")
	}
}
