package files

import (
	"io"
	"os"
	"strings"

	"github.com/moby/sys/mountinfo"
)

// readMounts parses a mountinfo table with moby's parser (octal escapes
// in mount points, optional fields, super options).
func readMounts(table io.Reader) ([]Mount, error) {
	infos, err := mountinfo.GetMountsFromReader(table, nil)
	if err != nil {
		return nil, err
	}
	out := make([]Mount, 0, len(infos))
	for _, i := range infos {
		out = append(out, Mount{Point: i.Mountpoint, FSType: i.FSType, Source: i.Source,
			Options: strings.Join([]string{i.Options, i.VFSOptions}, ",")})
	}
	return out, nil
}

// windowsDrive names a root on a Windows drive under WSL ("drvfs"), from
// this process's own mountinfo; "" elsewhere.
func windowsDrive(root string) string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	if m, ok := MountOf(f, root); ok && m.WindowsDrive() {
		return "drvfs"
	}
	return ""
}
