package scriptprobe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// Why the helper is labmate re-executing itself: mounts, pivot_root and
// a reaping PID 1 must happen in the new namespaces before the script is
// exec'd, which os/exec cannot do (runc's nsexec and bubblewrap work the
// same way). The helper is small and does nothing but that.

// scriptUIDInside is the user the script runs as inside the user
// namespace when labmate itself is root: mapped to an unprivileged user
// outside, so the kernel enforces RLIMIT_NPROC (it never does for root).
const scriptUIDInside = 1000

// nobody is the outside user a root labmate's scripts run as.
const nobody = 65534

// cloneFlags are the namespaces of one run.
const cloneFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
	syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// InitMain runs the sandbox helper and never returns. Call it only when
// IsInit reported true.
func InitMain() {
	var c initConfig
	if err := json.Unmarshal([]byte(os.Args[2]), &c); err != nil {
		fmt.Fprintln(os.Stderr, "labmate sandbox helper: bad config:", err)
		os.Exit(125)
	}
	// fd 3 reports to the parent; no process the helper starts may hold it.
	unix.CloseOnExec(3)
	switch c.Mode {
	case SandboxNamespaces:
		os.Exit(nsInit(c))
	default:
		execContained(c)
	}
}

// setupFailed reports a failed setup of the helper on fd 3 and exits.
func setupFailed(err error) {
	_ = json.NewEncoder(os.NewFile(3, "status")).Encode(initStatus{Setup: err.Error(), Errno: errnoOf(err)})
	os.Exit(126)
}

// setLimits applies the per-run rlimits to this process; its children
// inherit them.
func setLimits(procs uint64) {
	set := func(res int, v uint64) { _ = unix.Setrlimit(res, &unix.Rlimit{Cur: v, Max: v}) }
	set(unix.RLIMIT_CPU, LimitCPUSeconds)
	set(unix.RLIMIT_FSIZE, LimitFileSize)
	set(unix.RLIMIT_CORE, 0)
	if procs > 0 {
		set(unix.RLIMIT_NPROC, procs)
	}
}

// execContained is the landlock and none modes: limits, Landlock rules
// where asked, the unprivileged user for a root labmate, then exec.
func execContained(c initConfig) {
	setLimits(procLimitOutside(c.UID))
	if c.Mode == SandboxLandlock {
		err := landlock.V7.BestEffort().Restrict(
			landlock.RODirs("/"),
			landlock.RWDirs(c.RunDir),
			landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty").IgnoreIfMissing(),
		)
		if err != nil {
			setupFailed(stepErr{"landlock", err})
		}
	}
	if c.UID >= 0 {
		if err := dropTo(c.UID, c.GID); err != nil {
			setupFailed(stepErr{"setuid", err})
		}
	}
	if err := os.Chdir(c.Dir); err != nil {
		setupFailed(stepErr{"chdir", err})
	}
	err := syscall.Exec(c.Script, []string{c.Script}, c.Env)
	// The script's own start failure (fd 3 closes unread on success).
	_ = json.NewEncoder(os.NewFile(3, "status")).Encode(initStatus{StartErr: errnoText(err), Errno: errnoOf(err)})
	os.Exit(127)
}

func errnoText(err error) string {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e.Error()
	}
	return err.Error()
}

func dropTo(uid, gid int) error {
	if err := syscall.Setgroups(nil); err != nil {
		return err
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return err
	}
	return syscall.Setresuid(uid, uid, uid)
}

// procLimitOutside is RLIMIT_NPROC without a user namespace, where the
// kernel counts every process of the user: the user's present count plus
// the run's allowance. 0 (no limit) for root, which the kernel exempts.
func procLimitOutside(uid int) uint64 {
	if uid < 0 {
		uid = os.Getuid()
	}
	if uid == 0 {
		return 0
	}
	return uint64(countProcs(uid) + LimitProcs)
}

func countProcs(uid int) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		if info, err := os.Stat("/proc/" + e.Name()); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
				n++
			}
		}
	}
	return n
}

// nsInit is PID 1 of a run's namespaces: it builds the read-only root,
// runs the script, reaps every process, and when the script's main
// process ends kills all the others. The status goes to fd 3.
func nsInit(c initConfig) int {
	status := os.NewFile(3, "status")
	report := func(s initStatus) int {
		_ = json.NewEncoder(status).Encode(s)
		return 0
	}
	// Signals the script sends to its parent must not end the run early
	// (the kernel never delivers SIGKILL to a namespace's init from inside).
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGPIPE, syscall.SIGALRM)
	go func() {
		for range sigs {
		}
	}()
	if err := buildRoot(c); err != nil {
		return report(initStatus{Setup: err.Error(), Errno: errnoOf(err)})
	}
	if c.Probe {
		return report(initStatus{})
	}
	setLimits(LimitProcs)
	// No setuid program may raise the script's powers.
	_ = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	attr := &syscall.ProcAttr{Dir: c.Dir, Env: c.Env, Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{}}
	if c.UID >= 0 {
		attr.Sys.Credential = &syscall.Credential{Uid: uint32(c.UID), Gid: uint32(c.GID)}
	}
	pid, err := syscall.ForkExec(c.Script, []string{c.Script}, attr)
	if err != nil {
		return report(initStatus{StartErr: errnoText(err), Errno: errnoOf(err)})
	}
	st := initStatus{Started: true, Exit: -1}
	mainDone := false
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			break // ECHILD: every process of the run is gone
		}
		if got == pid {
			mainDone = true
			if ws.Exited() {
				st.Exit = ws.ExitStatus()
			}
		}
		if mainDone {
			_ = unix.Kill(-1, unix.SIGKILL)
		}
	}
	return report(st)
}

func errnoOf(err error) int {
	var e syscall.Errno
	if errors.As(err, &e) {
		return int(e)
	}
	return 0
}

// stepErr names the setup step that failed.
type stepErr struct {
	step string
	err  error
}

func (e stepErr) Error() string { return e.step + ": " + e.err.Error() }
func (e stepErr) Unwrap() error { return e.err }

// topLevel are the host directories the sandbox shows, read-only.
var topLevel = []string{"usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "opt"}

// deviceNodes are the devices a shell script may use.
var deviceNodes = []string{"null", "zero", "full", "random", "urandom"}

// buildRoot makes the run's root file system at c.Root and moves into
// it: a read-only tmpfs with the host's system directories bound
// read-only, the trap layers over the places they shadow, a minimal
// /dev, a fresh /proc, and the run directory as the only writable place.
func buildRoot(c initConfig) error {
	try := func(step string, err error) error {
		if err != nil {
			return stepErr{step, err}
		}
		return nil
	}
	root := c.Root
	if err := try("make mounts private", unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")); err != nil {
		return err
	}
	if err := try("mount root tmpfs", unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m")); err != nil {
		return err
	}
	for _, name := range topLevel {
		host := "/" + name
		fi, err := os.Lstat(host)
		if err != nil {
			continue
		}
		dst := filepath.Join(root, name)
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(host)
			if err == nil {
				err = os.Symlink(target, dst)
			}
			if err := try("link "+host, err); err != nil {
				return err
			}
			continue
		}
		if !fi.IsDir() {
			continue
		}
		if err := try("bind "+host, bindRO(host, dst)); err != nil {
			return err
		}
	}
	if err := mountTraps(root, c.TrapDir); err != nil {
		return err
	}
	if err := makeDev(root); err != nil {
		return err
	}
	// A fresh /proc shows only the run's processes. Where the kernel
	// refuses it (a container masking parts of its /proc), there is none.
	if err := os.Mkdir(filepath.Join(root, "proc"), 0o555); err == nil {
		_ = unix.Mount("proc", filepath.Join(root, "proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	}
	for _, d := range []struct{ host, inside string }{
		{c.RunDir, InsideRunDir},
		{filepath.Join(c.RunDir, "tmp"), "/tmp"},
	} {
		if err := try("bind "+d.inside, bind(d.host, filepath.Join(root, d.inside), false)); err != nil {
			return err
		}
	}
	if err := try("remount root read-only", unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")); err != nil {
		return err
	}
	if err := try("chdir root", unix.Chdir(root)); err != nil {
		return err
	}
	if err := try("pivot_root", unix.PivotRoot(".", ".")); err != nil {
		return err
	}
	if err := try("detach old root", unix.Unmount(".", unix.MNT_DETACH)); err != nil {
		return err
	}
	_ = unix.Chdir("/")
	_ = unix.Sethostname([]byte("labmate"))
	return nil
}

// bind mounts host at dst (creating dst as a directory or an empty file
// to match), read-only unless rw.
func bind(host, dst string, ro bool) error {
	fi, err := os.Stat(host)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		err = os.MkdirAll(dst, 0o755)
	} else {
		var f *os.File
		if f, err = os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
		}
	}
	if err != nil {
		return err
	}
	if err := unix.Mount(host, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if !ro {
		return nil
	}
	return remountRO(dst)
}

func bindRO(host, dst string) error { return bind(host, dst, true) }

// remountRO makes a bind mount read-only, keeping the flags the kernel
// locks for a mount inherited from a more privileged namespace.
func remountRO(dst string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | unix.MS_NOSUID)
	for _, f := range []uintptr{unix.ST_NOSUID, unix.ST_NODEV, unix.ST_NOEXEC, unix.ST_NOATIME, unix.ST_NODIRATIME, unix.ST_RELATIME} {
		if uintptr(st.Flags)&f != 0 {
			flags |= f // ST_* and MS_* share values for these
		}
	}
	return unix.Mount("", dst, "", flags, "")
}

// mountTraps lays the trap tree (trapDir mirrors the root: trapDir/etc/
// containerd/config.toml, trapDir/usr/bin/containerd, ...) over the new
// root: a read-only overlay at the deepest directory each trap's place
// shares with the host, or the trap directory itself where the host has
// none of its parents (a missing /opt).
func mountTraps(root, trapDir string) error {
	if trapDir == "" {
		return nil
	}
	var leaves []string
	_ = filepath.WalkDir(trapDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			leaves = append(leaves, strings.TrimPrefix(filepath.Dir(p), trapDir))
		}
		return nil
	})
	seen := map[string]bool{}
	var at []string
	for _, dir := range leaves {
		d := deepestExisting(dir)
		if !seen[d] {
			seen[d] = true
			at = append(at, d)
		}
	}
	sort.Strings(at)
	var done []string
	for _, d := range at {
		nested := false
		for _, p := range done {
			if d == p || strings.HasPrefix(d, p+"/") {
				nested = true
			}
		}
		if nested {
			continue
		}
		done = append(done, d)
		lower := filepath.Join(trapDir, d)
		dst := filepath.Join(root, d)
		var err error
		if d == "/" {
			return stepErr{"trap", fmt.Errorf("no host directory under %s", lower)}
		}
		if _, statErr := os.Stat(d); statErr != nil {
			err = bindRO(lower, dst)
		} else {
			if err = os.MkdirAll(dst, 0o755); err == nil {
				err = unix.Mount("overlay", dst, "overlay", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV,
					"lowerdir="+escapeOverlay(lower)+":"+escapeOverlay(d))
			}
		}
		if err != nil {
			return stepErr{"trap " + d, err}
		}
	}
	return nil
}

// deepestExisting is dir itself if the host has it, else its nearest
// ancestor the host has, one level below "/" at the highest (a missing
// top-level directory is made in the new root from the trap layer).
func deepestExisting(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			if d == "/" {
				// The top-level part of dir, which the host lacks.
				parts := strings.SplitN(strings.TrimPrefix(dir, "/"), "/", 2)
				return "/" + parts[0]
			}
			return d
		}
		if d == "/" {
			return "/"
		}
	}
}

func escapeOverlay(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `:`, `\:`, `,`, `\,`)
	return r.Replace(p)
}

// makeDev is a tmpfs /dev with the harmless devices bound from the host.
func makeDev(root string) error {
	dev := filepath.Join(root, "dev")
	if err := os.Mkdir(dev, 0o755); err != nil {
		return stepErr{"mkdir /dev", err}
	}
	if err := unix.Mount("tmpfs", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return stepErr{"mount /dev", err}
	}
	for _, n := range deviceNodes {
		if err := bind("/dev/"+n, filepath.Join(dev, n), false); err != nil {
			return stepErr{"bind /dev/" + n, err}
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return stepErr{"link /dev/" + name, err}
		}
	}
	return remountRO(dev)
}

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
		st, out, err := runHelper(l, initConfig{Mode: SandboxNamespaces, Probe: true, Root: l.root, RunDir: l.run, TrapDir: l.trap, UID: -1, GID: -1}, nil)
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
func runHelper(l layout, c initConfig, _ []string) (initStatus, string, error) {
	cmd, statusR, err := nsCommand(l, c)
	if err != nil {
		return initStatus{}, "", err
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		statusR.Close()
		return initStatus{}, "", err
	}
	cmd.ExtraFiles[0].Close()
	var st initStatus
	decErr := json.NewDecoder(statusR).Decode(&st)
	statusR.Close()
	waitErr := cmd.Wait()
	if decErr != nil {
		if waitErr != nil {
			return st, out.String(), waitErr
		}
		return st, out.String(), decErr
	}
	return st, out.String(), nil
}

// helperCommand is labmate re-executed as the sandbox helper with c;
// status is the read end of the helper's fd 3.
func helperCommand(c initConfig) (*exec.Cmd, *os.File, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(self, initArg, encodeConfig(c))
	cmd.Env = []string{initEnv + "=1"}
	cmd.ExtraFiles = []*os.File{statusW}
	return cmd, statusR, nil
}

// nsCommand is the namespaces helper for one run (or a probe).
func nsCommand(l layout, c initConfig) (*exec.Cmd, *os.File, error) {
	cmd, statusR, err := helperCommand(c)
	if err != nil {
		return nil, nil, err
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
	cmd.SysProcAttr = attr
	return cmd, statusR, nil
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

// configWatch observes opens of the config trap through inotify, which
// sees them through the overlay too. It returns a function telling
// whether the trap was opened since.
func configWatch(trapFile string) (func() bool, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if _, err := unix.InotifyAddWatch(fd, trapFile, unix.IN_OPEN|unix.IN_ACCESS); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return func() bool {
		defer unix.Close(fd)
		buf := make([]byte, 4096)
		n, _ := unix.Read(fd, buf)
		return n > 0
	}, nil
}

func errnoName(err error) string {
	var e syscall.Errno
	if errors.As(err, &e) {
		return unix.ErrnoName(e)
	}
	return ""
}
