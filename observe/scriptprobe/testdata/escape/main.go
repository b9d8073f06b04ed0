// Command escape tries, from inside a script's sandbox, what the sandbox
// must refuse, and prints one line per try: "<try>=<result>", the result
// "ok" or the errno's name. The tests that build it read those lines.
//
//	escape calls   the system calls the filter denies
//	escape big     one allocation past the memory limit
//	escape grow    allocations of 1 MiB, touched, until one fails
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	switch os.Args[1] {
	case "calls":
		calls()
	case "big":
		_, err := syscall.Mmap(-1, 0, 2<<30, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		report("big", err)
	case "grow":
		grow()
	}
}

func report(try string, err error) {
	res := "ok"
	if e, ok := err.(syscall.Errno); ok {
		res = errnoName(e)
	} else if err != nil {
		res = err.Error()
	}
	fmt.Printf("%s=%s\n", try, res)
}

func errnoName(e syscall.Errno) string {
	switch e {
	case syscall.EPERM:
		return "EPERM"
	case syscall.ENOMEM:
		return "ENOMEM"
	case syscall.ENOSYS:
		return "ENOSYS"
	case syscall.EINVAL:
		return "EINVAL"
	case syscall.EACCES:
		return "EACCES"
	case syscall.EFAULT:
		return "EFAULT"
	case syscall.EBADF:
		return "EBADF"
	case syscall.ENOENT:
		return "ENOENT"
	case syscall.ESRCH:
		return "ESRCH"
	}
	return fmt.Sprintf("errno%d", int(e))
}

func raw(nr uintptr, args ...uintptr) error {
	var a [6]uintptr
	copy(a[:], args)
	_, _, e := syscall.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if e != 0 {
		return e
	}
	return nil
}

func calls() {
	dir, _ := os.MkdirTemp("", "escape")
	report("unshare", syscall.Unshare(syscall.CLONE_NEWUSER))
	report("mount", syscall.Mount("none", dir, "tmpfs", 0, ""))
	report("umount2", syscall.Unmount(dir, 0))
	// Reading the parent's registers without attaching: ESRCH unfiltered.
	report("ptrace", raw(syscall.SYS_PTRACE, syscall.PTRACE_GETREGS, uintptr(os.Getppid()), 0, 0))
	report("setns", raw(unix.SYS_SETNS, ^uintptr(0), 0))
	report("bpf", raw(unix.SYS_BPF, 0, 0, 0))
	report("keyctl", raw(unix.SYS_KEYCTL, 0, 0))
	report("add_key", raw(unix.SYS_ADD_KEY, 0, 0, 0, 0, 0))
	report("perf_event_open", raw(unix.SYS_PERF_EVENT_OPEN, 0, 0, 0, 0, 0))
	report("init_module", raw(syscall.SYS_INIT_MODULE, 0, 0, 0))
	report("delete_module", raw(syscall.SYS_DELETE_MODULE, uintptr(unsafe.Pointer(&[]byte("labmate-no-such-module\x00")[0])), 0))
	// More segments than the kernel takes: EINVAL unfiltered, never a load.
	report("kexec_load", raw(unix.SYS_KEXEC_LOAD, 0, 1000, 0, 0))
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	err := cmd.Run()
	var errno syscall.Errno
	if errors.As(err, &errno) {
		err = errno
	}
	report("clone", err)
}

func grow() {
	n := 0
	var held [][]byte
	for ; n < 4096; n++ {
		b, err := syscall.Mmap(-1, 0, 1<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			// Give the memory back first: reporting allocates, and the
			// Go runtime dies rather than fail an allocation.
			for _, h := range held {
				_ = syscall.Munmap(h)
			}
			report("grow", err)
			fmt.Printf("grown=%d\n", n)
			return
		}
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		held = append(held, b)
	}
	report("grow", nil)
}
