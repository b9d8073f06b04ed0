package scriptprobe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/labhub/labmate/observe"
)

// scriptUIDInside is the user the script runs as inside the user
// namespace when labmate itself is root: mapped to an unprivileged user
// outside, so the kernel enforces RLIMIT_NPROC (it never does for root).
const scriptUIDInside = 1000

// nobody is the outside user a root labmate's scripts run as.
const nobody = 65534

// cloneFlags are the namespaces of one run.
const cloneFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
	syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// landlockABI is the Landlock ABI version the kernel offers, 0 if none.
func landlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */)
	if e != 0 {
		return 0
	}
	return int(v)
}

// probeMode checks that mode works here; for namespaces it builds a whole
// sandbox once and throws it away.
func probeMode(m SandboxMode) error {
	switch m {
	case SandboxLandlock:
		if landlockABI() < 1 {
			return errors.New("the kernel offers no Landlock")
		}
		return nil
	case SandboxNamespaces:
		base, err := os.MkdirTemp("", "labmate-sandbox-probe-*")
		if err != nil {
			return err
		}
		defer removeAll(base)
		l, err := newLayout(base, SandboxNamespaces)
		if err != nil {
			return err
		}
		st, out, err := runHelper(l, initConfig{Mode: SandboxNamespaces, Probe: true, Root: l.root, RunDir: l.run, Layer: l.layer,
			Binds: bindsOf(observe.SandboxSpec{}), Devices: SystemDevices, UID: -1, GID: -1})
		switch {
		case err != nil:
			return fmt.Errorf("%v %s", err, strings.TrimSpace(out))
		case st.Setup != "":
			return errors.New(st.Setup)
		}
		return nil
	}
	return fmt.Errorf("unknown sandbox mode %q", m)
}

// runHelper starts the namespaces helper for a probe and waits for it.
func runHelper(l layout, c initConfig) (initStatus, string, error) {
	h, err := nsCommand(l, c)
	if err != nil {
		return initStatus{}, "", err
	}
	defer h.close()
	var out strings.Builder
	h.cmd.Stdout, h.cmd.Stderr = &out, &out
	if err := h.start(); err != nil {
		return initStatus{}, "", err
	}
	var st initStatus
	decErr := json.NewDecoder(h.status).Decode(&st)
	waitErr := h.cmd.Wait()
	if decErr != nil {
		if waitErr != nil {
			return st, out.String(), waitErr
		}
		return st, out.String(), decErr
	}
	return st, out.String(), nil
}

// helperProc is labmate re-executed as the sandbox helper, with the
// parent's ends of its status (fd 3) and filter (fd 4) channels.
type helperProc struct {
	cmd            *exec.Cmd
	status, filter *os.File
}

// helperCommand is labmate re-executed as the sandbox helper with c.
func helperCommand(c initConfig) (*helperProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		statusR.Close()
		statusW.Close()
		return nil, err
	}
	cmd := exec.Command(self, initArg, encodeConfig(c))
	cmd.Env = []string{initEnv + "=1"}
	cmd.ExtraFiles = []*os.File{statusW, os.NewFile(uintptr(pair[1]), "filter")}
	return &helperProc{cmd: cmd, status: statusR, filter: os.NewFile(uintptr(pair[0]), "filter")}, nil
}

// start starts the helper and closes the child's ends of its channels
// here, so reading them ends when the helper and what it started do.
func (h *helperProc) start() error {
	err := h.cmd.Start()
	for _, f := range h.cmd.ExtraFiles {
		f.Close()
	}
	return err
}

// close closes the parent's ends.
func (h *helperProc) close() {
	h.status.Close()
	h.filter.Close()
}

// nsCommand is the namespaces helper for one run (or a probe).
func nsCommand(l layout, c initConfig) (*helperProc, error) {
	h, err := helperCommand(c)
	if err != nil {
		return nil, err
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr := &syscall.SysProcAttr{Cloneflags: cloneFlags, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	if uid == 0 {
		attr.UidMappings = append(attr.UidMappings, syscall.SysProcIDMap{ContainerID: scriptUIDInside, HostID: nobody, Size: 1})
		attr.GidMappings = append(attr.GidMappings, syscall.SysProcIDMap{ContainerID: scriptUIDInside, HostID: nobody, Size: 1})
		attr.GidMappingsEnableSetgroups = true
	}
	h.cmd.SysProcAttr = attr
	return h, nil
}

// scriptUser is who the script runs as: for a root labmate an
// unprivileged user (inside the user namespace, or nobody outside it);
// -1 keeps labmate's own. Outside a user namespace nobody must be able
// to reach the run directory through its parents (a TMPDIR private to
// root cannot be): the run then keeps root, contained by the other means.
func scriptUser(mode SandboxMode, l layout) (uid, gid int) {
	if os.Getuid() != 0 {
		return -1, -1
	}
	if mode == SandboxNamespaces {
		return scriptUIDInside, scriptUIDInside
	}
	for d := filepath.Dir(l.base); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return -1, -1
		}
		if d == "/" {
			return nobody, nobody
		}
	}
}

// giveRunDir hands the run directory to the unprivileged user a root
// labmate runs scripts as, and lets it reach the directory.
func giveRunDir(l layout, uid int) error {
	if uid < 0 {
		return nil
	}
	if err := os.Chmod(l.base, 0o711); err != nil {
		return err
	}
	return filepath.WalkDir(l.run, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody) // the outside user of uid either way
	})
}

// watchOpens observes opens of the layer's watched files (host paths by
// their inside paths) through inotify, which sees them through the
// overlay too. It returns a function telling which were opened since,
// sorted by inside path.
func watchOpens(files map[string]string) (func() []string, error) {
	if len(files) == 0 {
		return func() []string { return nil }, nil
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	byWatch := map[int32]string{}
	for inside, host := range files {
		wd, err := unix.InotifyAddWatch(fd, host, unix.IN_OPEN|unix.IN_ACCESS)
		if err != nil {
			unix.Close(fd)
			return nil, err
		}
		byWatch[int32(wd)] = inside
	}
	return func() []string {
		defer unix.Close(fd)
		opened := map[string]bool{}
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if err != nil || n < unix.SizeofInotifyEvent {
				break
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				opened[byWatch[ev.Wd]] = true
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
		var out []string
		for p := range opened {
			out = append(out, p)
		}
		sort.Strings(out)
		return out
	}, nil
}

func errnoName(err error) string {
	var e syscall.Errno
	if errors.As(err, &e) {
		return unix.ErrnoName(e)
	}
	return ""
}

// peakRSS is the largest resident size of the process ps describes or
// of any descendant it waited for, in bytes.
func peakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10 // kilobytes on Linux
	}
	return 0
}
