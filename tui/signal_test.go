package tui

import (
	"fmt"
	"syscall"
)

func syscallKill(pid int, name string) error {
	sig := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2}[name]
	if name == "0" {
		return syscall.Kill(pid, 0) // does it exist?
	}
	if sig == 0 {
		return fmt.Errorf("no signal %s", name)
	}
	return syscall.Kill(pid, sig)
}
