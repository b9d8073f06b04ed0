//go:build !linux

package scriptprobe

import (
	"errors"
	"os"
	"os/exec"

	"github.com/labhub/labmate/observe"
)

// Off Linux there is no sandbox: scripts run as they always did.

// InitMain is never reached off Linux (IsInit is false there in practice).
func InitMain() { os.Exit(125) }

func probeMode(SandboxMode) error { return errors.New("no sandbox off Linux") }

type helperProc struct {
	cmd            *exec.Cmd
	status, filter *os.File
}

func (h *helperProc) start() error { return errors.New("no sandbox off Linux") }
func (h *helperProc) close()       {}

func helperCommand(initConfig) (*helperProc, error) {
	return nil, errors.New("no sandbox off Linux")
}

func nsCommand(layout, initConfig) (*helperProc, error) {
	return nil, errors.New("no sandbox off Linux")
}

type refusals struct{}

func (*refusals) finish() ([]string, bool) { return nil, false }

func receiveFilter(*os.File) (string, *os.File) { return "", nil }
func serveRefusals(*os.File) *refusals          { return nil }

func scriptUser(SandboxMode, layout) (int, int) { return -1, -1 }
func giveRunDir(layout, int) error              { return nil }
func watchOpens(map[string]string) (func() []string, error) {
	return nil, errors.New("no layout off Linux")
}
func errnoName(error) string         { return "" }
func peakRSS(*os.ProcessState) int64 { return 0 }

func filterAvailable() string { return observe.SeccompOff }
