package doctor

import (
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe/files"
)

// wslProbe says, under WSL, whether the lab root is on a Windows drive:
// there file events do not arrive for saves made from Windows, and the
// file source polls (files.PollReason reads the same mount table). It
// says nothing outside WSL. proc is /proc (its version and
// self/mountinfo), a test's own files in tests.
func wslProbe(o Lab, proc fs.FS) []Finding {
	kind := wslKind(proc)
	if kind == "" {
		return nil
	}
	root := o.Root.Path
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // a link from home to /mnt/c is still the drive
	}
	table, err := proc.Open("self/mountinfo")
	if err != nil {
		return []Finding{finding("wsl", Warn, content.Msg("ops.doctor.wsl.no_mounts", "kind", kind))}
	}
	defer table.Close()
	m, ok := files.MountOf(table, root)
	if !ok {
		return []Finding{finding("wsl", Warn, content.Msg("ops.doctor.wsl.no_mounts", "kind", kind))}
	}
	if m.WindowsDrive() {
		return []Finding{finding("wsl", Warn,
			content.Msg("ops.doctor.wsl.windows_drive", "kind", kind, "root", o.Root.Path, "fs", m.FSType),
			fix("wsl", "root", o.Root.Path, "base", filepath.Base(o.Root.Path)))}
	}
	return []Finding{finding("wsl", OK, content.Msg("ops.doctor.wsl.linux_fs", "kind", kind, "root", o.Root.Path, "fs", m.FSType))}
}

// wslKind is "WSL2" or "WSL1" when the kernel is WSL's (its version
// names Microsoft: "…-microsoft-standard-WSL2" for WSL2, "…-Microsoft"
// for WSL1), "" otherwise.
func wslKind(proc fs.FS) string {
	if proc == nil {
		return ""
	}
	b, err := fs.ReadFile(proc, "version")
	if err != nil {
		return ""
	}
	v := strings.ToLower(string(b))
	switch {
	case strings.Contains(v, "wsl2"), strings.Contains(v, "microsoft-standard"):
		return "WSL2"
	case strings.Contains(v, "microsoft"):
		return "WSL1"
	}
	return ""
}
