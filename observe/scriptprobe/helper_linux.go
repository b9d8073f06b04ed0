package scriptprobe

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/labhub/labmate/observe"
	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// Why the helper is labmate re-executing itself: mounts, pivot_root, the
// system-call filter and a reaping PID 1 must happen in the new process
// before the script is exec'd, which os/exec cannot do (runc's nsexec
// and bubblewrap work the same way). The helper is small and does
// nothing but that.

// The helper's channels to the parent: fd 3 reports its status (setup
// failures, the script's start failure, the namespaces init's result);
// fd 4 carries the system-call filter's mode and, for a notifying one,
// its listener.
const (
	statusFD = 3
	filterFD = 4
)

// InitMain runs the sandbox helper and never returns. Call it only when
// IsInit reported true.
func InitMain() {
	// no_new_privs and the seccomp filter are per thread: the one that
	// loads them is the one that forks or execs the script.
	runtime.LockOSThread()
	var c initConfig
	if err := json.Unmarshal([]byte(os.Args[2]), &c); err != nil {
		fmt.Fprintln(os.Stderr, "labmate sandbox helper: bad config:", err)
		os.Exit(125)
	}
	// No process the helper starts may hold its channels.
	unix.CloseOnExec(statusFD)
	unix.CloseOnExec(filterFD)
	switch {
	case c.Mode == SandboxNamespaces && c.Inner:
		nsInner(c)
	case c.Mode == SandboxNamespaces:
		os.Exit(nsInit(c))
	default:
		execContained(c)
	}
}

// setupFailed reports a failed setup of the helper on fd 3 and exits.
func setupFailed(err error) {
	_ = json.NewEncoder(os.NewFile(statusFD, "status")).Encode(initStatus{Setup: err.Error(), Errno: errnoOf(err)})
	os.Exit(126)
}

// setLimits applies the per-run rlimits to this process; its children
// inherit them. Memory is RLIMIT_DATA: it counts what a process asks to
// write (heap, anonymous mappings), not address space it only reserves,
// which RLIMIT_AS would (Go and Java programs reserve gigabytes they
// never touch). A cgroup would bound the run as a whole, but needs a
// delegation an unprivileged labmate rarely has; per process, the run is
// bounded by Procs times Memory.
func setLimits(l observe.Limits, procs uint64) {
	set := func(res int, v uint64) { _ = unix.Setrlimit(res, &unix.Rlimit{Cur: v, Max: v}) }
	set(unix.RLIMIT_CPU, uint64(l.CPUSeconds))
	set(unix.RLIMIT_FSIZE, uint64(l.FileSize))
	set(unix.RLIMIT_CORE, 0)
	if procs > 0 {
		set(unix.RLIMIT_NPROC, procs)
	}
	set(unix.RLIMIT_DATA, uint64(l.Memory))
}

// execContained is the landlock and none modes: limits, Landlock rules
// where asked, the unprivileged user for a root labmate, the system-call
// filter, then exec.
func execContained(c initConfig) {
	procs := procLimitOutside(c.UID, c.Limits.Procs)
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
	execScript(c, procs)
}

// execScript moves to the script's directory, loads the system-call
// filter, takes the run's limits and execs the script; only its start
// failure comes back, reported by execUnder. The limits come last: the Go
// runtime (and the race detector's, in tests) must not allocate under
// them.
func execScript(c initConfig, procs uint64) {
	if err := os.Chdir(c.Dir); err != nil {
		setupFailed(stepErr{"chdir", err})
	}
	if err := applyFilter(c); err != nil {
		setupFailed(stepErr{"seccomp", err})
	}
	err := execUnder(c.Script, c.Env, func() { setLimits(c.Limits, procs) })
	// Reached only when the exec's arguments could not be built, before
	// the limits.
	_ = json.NewEncoder(os.NewFile(statusFD, "status")).Encode(initStatus{StartErr: errnoText(err), Errno: errnoOf(err)})
	os.Exit(127)
}

// execUnder execs path with env once limit has run, allocating nothing
// from then on: syscall.Exec would allocate execve's arguments after the
// limits, and under RLIMIT_DATA a new mapping of the runtime fails (with
// the race detector's shadow memory already past the limit, every one:
// "fatal error: runtime: cannot allocate memory", seen in the -race lane
// under load). For the same reason a failed exec (a script without a
// shebang, a missing interpreter) is reported on fd 3 from a buffer made
// before the limits, and the helper leaves by exit_group. It returns only
// an error met before the limits.
func execUnder(path string, env []string, limit func()) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	argv, err := syscall.SlicePtrFromStrings([]string{path})
	if err != nil {
		return err
	}
	envv, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	report := make([]byte, 0, 256)
	limit()
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	report = appendStartErr(report, errno)
	syscall.RawSyscall(syscall.SYS_WRITE, statusFD, uintptr(unsafe.Pointer(&report[0])), uintptr(len(report)))
	syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 127, 0, 0)
	panic("unreachable")
}

// appendStartErr appends initStatus{StartErr, Errno} as JSON without
// growing b when its capacity suffices: execve's errors are all in
// syscall's table, whose texts hold no character JSON must escape.
func appendStartErr(b []byte, errno syscall.Errno) []byte {
	b = append(b, `{"started":false,"exit":0,"start_err":"`...)
	b = append(b, errno.Error()...)
	b = append(b, `","errno":`...)
	b = strconv.AppendInt(b, int64(errno), 10)
	return append(b, "}\n"...)
}

// applyFilter loads the strongest system-call filter c allows on this
// thread and tells the parent on fd 4 which one runs, handing it the
// listener of a notifying filter. A kernel that refuses every filter is
// not a failure: the run goes on unfiltered and says so.
func applyFilter(c initConfig) error {
	mode, listener := loadFilter(c.Seccomp, c.Limits.Memory)
	var rights []byte
	if listener >= 0 {
		defer unix.Close(listener)
		rights = unix.UnixRights(listener)
	}
	return unix.Sendmsg(filterFD, []byte(mode), rights, nil, 0)
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
func procLimitOutside(uid, procs int) uint64 {
	if uid < 0 {
		uid = os.Getuid()
	}
	if uid == 0 {
		return 0
	}
	return uint64(countProcs(uid) + procs)
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

// nsInit is PID 1 of a run's namespaces: it starts the run's first
// process (labmate again, as nsInner), reaps every process, and when
// that one ends kills all the others. Its result goes to fd 3 after
// anything the inner process reported there (the parent reads the
// first). PID 1 itself takes neither the script's limits nor its
// filter: it is a Go program that goes on running (allocating, and
// under the race detector mapping shadow memory) while the script runs.
func nsInit(c initConfig) int {
	status := os.NewFile(statusFD, "status")
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
	self, err := os.Executable()
	if err != nil {
		return report(initStatus{Setup: stepErr{"find helper", err}.Error(), Errno: errnoOf(err)})
	}
	c.Inner = true
	attr := &syscall.ProcAttr{Env: []string{initEnv + "=1"}, Files: []uintptr{0, 1, 2, statusFD, filterFD}}
	pid, err := syscall.ForkExec(self, []string{self, initArg, encodeConfig(c)}, attr)
	if err != nil {
		return report(initStatus{Setup: stepErr{"start inner helper", err}.Error(), Errno: errnoOf(err)})
	}
	// Only the inner process and what it starts hold the filter channel
	// now, so the parent's end closes when the run has ended.
	_ = unix.Close(filterFD)
	return report(reap(pid))
}

// nsInner is the run's first process inside its namespaces: it builds
// the read-only root, then takes the script's limits, user and filter
// and execs it (as execContained does outside namespaces).
func nsInner(c initConfig) {
	if err := buildRoot(c); err != nil {
		setupFailed(err)
	}
	if c.Probe {
		_ = json.NewEncoder(os.NewFile(statusFD, "status")).Encode(initStatus{})
		os.Exit(0)
	}
	if c.UID >= 0 {
		if err := dropTo(c.UID, c.GID); err != nil {
			setupFailed(stepErr{"setuid", err})
		}
	}
	execScript(c, uint64(c.Limits.Procs))
}

// reap waits for every process of the run; when the main one (pid) ends
// it kills the rest. It keeps the main one's exit. (Waiting for them all
// also gives the parent their peak memory, in the helper's rusage.)
func reap(pid int) initStatus {
	st := initStatus{Started: true, Exit: -1}
	mainDone := false
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return st // ECHILD: every process of the run is gone
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
