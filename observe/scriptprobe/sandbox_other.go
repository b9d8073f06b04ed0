//go:build !linux

package scriptprobe

import (
	"errors"
	"os"
	"os/exec"
)

// Off Linux there is no sandbox: scripts run as they always did.

// InitMain is never reached off Linux (IsInit is false there in practice).
func InitMain() { os.Exit(125) }

func probeMode(SandboxMode) error { return errors.New("no sandbox off Linux") }

func helperCommand(initConfig) (*exec.Cmd, *os.File, error) {
	return nil, nil, errors.New("no sandbox off Linux")
}

func nsCommand(layout, initConfig) (*exec.Cmd, *os.File, error) {
	return nil, nil, errors.New("no sandbox off Linux")
}

func scriptUser(SandboxMode, layout) (int, int) { return -1, -1 }
func giveRunDir(layout, int) error              { return nil }
func configWatch(string) (func() bool, error)   { return nil, errors.New("no traps off Linux") }
func errnoName(error) string                    { return "" }
