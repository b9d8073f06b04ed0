package scriptprobe

import (
	"os"
	"slices"
	"sync"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/labhub/labmate/observe"
)

// The system-call filter of a run. go-seccomp-bpf assembles it (names to
// numbers per architecture, the architecture check, the x32 ABI closed,
// 64-bit argument tests); labmate loads it itself, because the library's
// loader drops the listener a notifying filter returns.

// deniedCalls are refused to every process of a run: they change what
// the sandbox is (mounts, namespaces), reach into other processes or the
// kernel (ptrace, bpf, modules, kexec, perf), or share the kernel's
// keyrings. A name this architecture lacks is left out.
var deniedCalls = []string{
	"mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
	"setns", "ptrace", "process_vm_readv", "process_vm_writev", "open_by_handle_at",
	"kexec_load", "kexec_file_load", "bpf", "perf_event_open",
	"init_module", "finit_module", "delete_module",
	"keyctl", "add_key", "request_key",
}

// nsFlags are the clone and unshare flags that make a namespace.
const nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// filterPolicy is the run's filter: the denied calls, and unshare and
// clone asking for a namespace, get deny; an mmap or mremap of memory as
// large as the limit gets memDeny; clone3, whose flags a filter cannot
// read, is refused as unimplemented, so the C library falls back to
// clone. Every other call is allowed.
func filterPolicy(info *arch.Info, deny, memDeny seccomp.Action, memory int64) seccomp.Policy {
	has := func(n string) bool { _, ok := info.SyscallNames[n]; return ok }
	var names []string
	for _, n := range deniedCalls {
		if has(n) {
			names = append(names, n)
		}
	}
	var clone3 []string
	if has("clone3") {
		clone3 = []string{"clone3"}
	}
	withFlags := func(name string) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{
			{Argument: 0, Operation: seccomp.BitsSet, Value: nsFlags}}}
	}
	atLeast := func(name string, arg uint32, extra ...seccomp.Condition) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: append(seccomp.ArgumentConditions{
			{Argument: arg, Operation: seccomp.GreaterOrEqual, Value: uint64(memory)}}, extra...)}
	}
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: deny, Names: names, NamesWithCondtions: []seccomp.NameWithConditions{withFlags("unshare"), withFlags("clone")}},
			{Action: memDeny, NamesWithCondtions: []seccomp.NameWithConditions{
				atLeast("mmap", 1, seccomp.Condition{Argument: 2, Operation: seccomp.BitsSet, Value: unix.PROT_WRITE}),
				atLeast("mremap", 2),
			}},
			{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: clone3},
		},
	}
}

// loadFilter sets no_new_privs and loads the strongest filter up to want
// on the calling thread: a notifying one (its listener returned), one
// that only refuses, or none. It reports which.
func loadFilter(want string, memory int64) (mode string, listener int) {
	listener = -1
	if unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != nil {
		return observe.SeccompOff, listener
	}
	info, err := arch.GetInfo("")
	if err != nil {
		return observe.SeccompOff, listener
	}
	if want != observe.SeccompErrno && want != observe.SeccompOff {
		prog, err := assemble(filterPolicy(info, seccomp.ActionUserNotify, seccomp.ActionUserNotify, memory))
		if err == nil {
			if fd, err := seccompLoad(prog, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER); err == nil {
				return observe.SeccompNotify, fd
			}
		}
	}
	if want != observe.SeccompOff {
		prog, err := assemble(filterPolicy(info, seccomp.ActionErrno|seccomp.Action(unix.EPERM), seccomp.ActionErrno|seccomp.Action(unix.ENOMEM), memory))
		if err == nil {
			if _, err := seccompLoad(prog, 0); err == nil {
				return observe.SeccompErrno, listener
			}
		}
	}
	return observe.SeccompOff, listener
}

func assemble(p seccomp.Policy) ([]unix.SockFilter, error) {
	insts, err := p.Assemble()
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, err
	}
	out := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		out[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out, nil
}

// seccompLoad loads prog on this thread; with NEW_LISTENER it returns
// the listener.
func seccompLoad(prog []unix.SockFilter, flags uintptr) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	fd, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// receiveFilter reads what the helper said of its filter on fd 4: the
// mode, and for a notifying filter its listener. "" and nil when the
// helper ended before saying.
func receiveFilter(sock *os.File) (string, *os.File) {
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(int(sock.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || n == 0 {
		return "", nil
	}
	mode := string(buf[:n])
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) == 0 {
		return mode, nil
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) == 0 {
		return mode, nil
	}
	for _, extra := range fds[1:] {
		unix.Close(extra)
	}
	return mode, os.NewFile(uintptr(fds[0]), "seccomp-listener")
}

// The kernel's seccomp_notif and seccomp_notif_resp (linux/seccomp.h).
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// refusals answers a notifying filter's calls until finish: each is
// refused (ENOMEM for an allocation, EPERM for the rest) and recorded.
type refusals struct {
	listener *os.File
	stopR    *os.File
	stopW    *os.File
	done     chan struct{}

	mu     sync.Mutex
	denied []string
	memory bool
}

// serveRefusals starts answering listener's calls; nil when it cannot.
func serveRefusals(listener *os.File) *refusals {
	stopR, stopW, err := os.Pipe()
	if err != nil {
		listener.Close()
		return nil
	}
	r := &refusals{listener: listener, stopR: stopR, stopW: stopW, done: make(chan struct{})}
	info, _ := arch.GetInfo("")
	go r.serve(info)
	return r
}

func (r *refusals) serve(info *arch.Info) {
	defer close(r.done)
	defer func() { _ = recover() }()
	fds := []unix.PollFd{{Fd: int32(r.listener.Fd()), Events: unix.POLLIN}, {Fd: int32(r.stopR.Fd()), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if fds[1].Revents != 0 || fds[0].Revents&unix.POLLIN == 0 {
			return // finished, or every filtered process is gone
		}
		var req seccompNotif
		if err := ioctl(fds[0].Fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			continue // the caller died meanwhile (ENOENT), or a signal
		}
		name := info.SyscallNumbers[int(req.Nr)]
		errno := unix.EPERM
		r.mu.Lock()
		if name == "mmap" || name == "mremap" {
			errno, r.memory = unix.ENOMEM, true
		} else if !slices.Contains(r.denied, name) {
			r.denied = append(r.denied, name)
		}
		r.mu.Unlock()
		resp := seccompNotifResp{ID: req.ID, Error: -int32(errno)}
		_ = ioctl(fds[0].Fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
	}
}

// finish stops answering and returns the refused calls by name, in
// order, and whether an allocation past the memory limit was refused.
func (r *refusals) finish() ([]string, bool) {
	r.stopW.Close()
	<-r.done
	r.stopR.Close()
	r.listener.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.denied, r.memory
}

func ioctl(fd int32, req uint, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// filterAvailable is the strongest filter the kernel offers this
// process, asked without loading one (SECCOMP_GET_ACTION_AVAIL): a
// kernel or a container policy that refuses seccomp(2) offers none.
func filterAvailable() string {
	avail := func(action uint32) bool {
		_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
		return e == 0
	}
	switch {
	case avail(unix.SECCOMP_RET_USER_NOTIF):
		return observe.SeccompNotify
	case avail(unix.SECCOMP_RET_ERRNO):
		return observe.SeccompErrno
	}
	return observe.SeccompOff
}
