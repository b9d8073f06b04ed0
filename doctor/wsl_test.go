package doctor

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labroot"
)

// mountinfo lines as WSL2 writes them: ext4 root, the C: drive over 9p
// (aname=drvfs), a D: drive mounted by hand as drvfs, and a mount point
// with a space (octal-escaped).
const wslMounts = `61 1 8:32 / / rw,relatime - ext4 /dev/sdc rw,discard,errors=remount-ro,data=ordered
81 61 0:52 / /mnt/c rw,noatime - 9p C:\134 rw,dirsync,aname=drvfs;path=C:\;uid=1000;gid=1000;symlinkroot=/mnt/,mmap,access=client,msize=65536,trans=fd,rfd=5,wfd=5
82 61 0:53 / /mnt/d rw,noatime - drvfs D:\134 rw,uid=1000
83 61 0:54 / /mnt/my\040drive rw,noatime - virtiofs E:\134 rw
`

func fakeProc(version string) fstest.MapFS {
	return fstest.MapFS{
		"version":        {Data: []byte(version)},
		"self/mountinfo": {Data: []byte(wslMounts)},
	}
}

const (
	wsl2Version = "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 12.2.0) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n"
	wsl1Version = "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #3996-Microsoft Thu Jan 01 00:00:00 PST 2021\n"
	plainLinux  = "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1\n"
)

func TestWSLRootOnAWindowsDrive(t *testing.T) {
	for _, c := range []struct {
		name, version, root string
		verdict             Verdict
		says                []string
	}{
		{"wsl2 /mnt/c", wsl2Version, "/mnt/c/Users/ana/gpuop", Warn, []string{"WSL2", "Windows 드라이브(9p)", "폴링", "리눅스 파일 시스템 안"}},
		{"wsl1 drvfs", wsl1Version, "/mnt/d/labs/gpuop", Warn, []string{"WSL1", "Windows 드라이브(drvfs)"}},
		{"virtiofs drive", wsl2Version, "/mnt/my drive/gpuop", Warn, []string{"Windows 드라이브(virtiofs)"}},
		{"wsl2 home", wsl2Version, "/home/ana/gpuop", OK, []string{"WSL2", "리눅스 파일 시스템(ext4)"}},
		{"mnt/cx is not mnt/c", wsl2Version, "/mnt/cx/gpuop", OK, []string{"ext4"}},
	} {
		fs := wslProbe(Lab{Root: labroot.Root{Path: c.root}}, fakeProc(c.version))
		if len(fs) != 1 {
			t.Fatalf("%s: %d findings", c.name, len(fs))
		}
		f := fs[0]
		if f.Verdict != c.verdict {
			t.Errorf("%s: %s, want %s: %s", c.name, f.Verdict, c.verdict, f.Detail)
		}
		for _, s := range c.says {
			if !strings.Contains(f.Detail, s) {
				t.Errorf("%s: %q does not say %q", c.name, f.Detail, s)
			}
		}
		if c.verdict == Warn && !strings.Contains(f.Fix, "labmate --root ~/labs/gpuop") {
			t.Errorf("%s: the fix does not suggest a root in the Linux file system: %q", c.name, f.Fix)
		}
	}
	if fs := wslProbe(Lab{Root: labroot.Root{Path: "/mnt/c/x"}}, fakeProc(plainLinux)); len(fs) != 0 {
		t.Errorf("outside WSL it says %v", fs)
	}
	if fs := wslProbe(Lab{Root: labroot.Root{Path: "/mnt/c/x"}}, fstest.MapFS{}); len(fs) != 0 {
		t.Errorf("without /proc/version it says %v", fs)
	}
	noTable := fstest.MapFS{"version": {Data: []byte(wsl2Version)}}
	if fs := wslProbe(Lab{Root: labroot.Root{Path: "/mnt/c/x"}}, noTable); len(fs) != 1 || fs[0].Verdict != Warn {
		t.Errorf("WSL without a mount table: %v", fs)
	}
}

// Run shows the finding when /proc says WSL.
func TestRunSaysWSL(t *testing.T) {
	res := Run(t.Context(), Options{Cluster: kube.Target{Off: true}, Labs: []Lab{{ID: "gpu-incident", Root: labroot.Root{Path: "/mnt/c/gpuop"}}}, Proc: fakeProc(wsl2Version),
		Getenv: func(string) string { return "" }})
	for _, f := range res.Findings {
		if f.ID == "wsl" && f.Verdict == Warn {
			return
		}
	}
	t.Errorf("no WSL warning among %+v", res.Findings)
}
