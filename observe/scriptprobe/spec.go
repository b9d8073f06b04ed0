package scriptprobe

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/labhub/labmate/observe"
)

// SystemDirs are the host directories a sandbox shows when its spec
// names no binds: what a shell script needs to find its commands and
// their libraries.
var SystemDirs = []string{"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"}

// SystemDevices are the devices a sandbox has when its spec names none.
var SystemDevices = []string{"null", "zero", "full", "random", "urandom"}

// Default limits of every process of a run (observe.Limits' zero
// fields).
const (
	LimitCPUSeconds = 10        // CPU time of each process
	LimitFileSize   = 16 << 20  // bytes of one written file
	LimitProcs      = 64        // processes of the run at once
	LimitMemory     = 256 << 20 // bytes each process may allocate (RLIMIT_DATA)
	// minMemory is the least memory limit a spec may set: the helper
	// itself (a Go program) runs under it until it execs the script.
	minMemory = 64 << 20
)

// SystemBinds is SystemDirs as binds, for a spec that adds its own.
func SystemBinds() []observe.Bind {
	out := make([]observe.Bind, len(SystemDirs))
	for i, d := range SystemDirs {
		out[i] = observe.Bind{Host: d}
	}
	return out
}

// limitsOf fills in the defaults of l.
func limitsOf(l observe.Limits) observe.Limits {
	if l.CPUSeconds <= 0 {
		l.CPUSeconds = LimitCPUSeconds
	}
	if l.FileSize <= 0 {
		l.FileSize = LimitFileSize
	}
	if l.Procs <= 0 {
		l.Procs = LimitProcs
	}
	if l.Memory <= 0 {
		l.Memory = LimitMemory
	}
	l.Memory = max(l.Memory, minMemory)
	return l
}

// bindsOf is the spec's binds, or the system's directories.
func bindsOf(s observe.SandboxSpec) []bindSpec {
	binds := s.Binds
	if binds == nil {
		binds = SystemBinds()
	}
	out := make([]bindSpec, len(binds))
	for i, b := range binds {
		out[i] = bindSpec{Host: b.Host, Inside: b.Inside}
		if out[i].Inside == "" {
			out[i].Inside = b.Host
		}
	}
	return out
}

// devicesOf is the spec's devices, or the harmless ones.
func devicesOf(s observe.SandboxSpec) []string {
	if s.Devices == nil {
		return SystemDevices
	}
	return s.Devices
}

// reserved are the places of the new root the prober itself mounts:
// a spec may not lay anything out there.
var reserved = []string{InsideRunDir, "/tmp", "/dev", "/proc"}

// checkSpec refuses a spec the sandbox cannot build: paths that are
// not absolute and clean, places the prober mounts itself, device names
// that are paths, environment entries without a name.
func checkSpec(s observe.SandboxSpec) error {
	var places []string
	for _, f := range s.Files {
		places = append(places, f.Path)
	}
	places = append(places, s.Commands...)
	for _, b := range bindsOf(s) {
		if !filepath.IsAbs(b.Host) {
			return fmt.Errorf("bind %q: not an absolute path", b.Host)
		}
		places = append(places, b.Inside)
	}
	for _, p := range places {
		if !path.IsAbs(p) || path.Clean(p) != p || p == "/" {
			return fmt.Errorf("sandbox path %q: not an absolute clean path", p)
		}
		for _, r := range reserved {
			if p == r || strings.HasPrefix(p, r+"/") {
				return fmt.Errorf("sandbox path %q: inside %s, which the prober mounts", p, r)
			}
		}
	}
	for _, d := range devicesOf(s) {
		if d == "" || strings.ContainsRune(d, '/') || d == "." || d == ".." {
			return fmt.Errorf("device %q: not a name under /dev", d)
		}
	}
	for _, e := range s.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("environment entry %q: not KEY=VALUE", e)
		}
	}
	return nil
}

// withEnv is env with extra's entries, each replacing an entry of the
// same name.
func withEnv(env, extra []string) []string {
	out := append([]string(nil), env...)
	for _, e := range extra {
		k, _, _ := strings.Cut(e, "=")
		replaced := false
		for i, o := range out {
			if ok, _, _ := strings.Cut(o, "="); ok == k {
				out[i], replaced = e, true
			}
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return out
}
