package sandboxcmd

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/prebuilt"
)

// bundle needs -o; a bin dir labmate did not fill makes no bundle; a
// filled one makes a bundle whose path alone is on stdout, and `up
// --from` that bundle installs into an empty bin dir before anything
// else (here it then stops: a lab that is not there).
func TestBundleCommand(t *testing.T) {
	code, _, errOut := run(t, "bundle")
	if code != cli.ExitUsage || !strings.Contains(errOut, "-o FILE") {
		t.Fatalf("bundle without -o: exit %d, stderr %q", code, errOut)
	}

	bin := t.TempDir()
	for _, b := range sandbox.Binaries {
		os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\necho "+b+"\n"), 0o755)
	}
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	code, _, errOut = run(t, "bundle", "--bin-dir", bin, "-o", out)
	if code != cli.ExitFail || !strings.Contains(errOut, ".stamp") {
		t.Fatalf("bundle of a hand-filled bin dir: exit %d, stderr %q", code, errOut)
	}
	os.WriteFile(filepath.Join(bin, ".stamp"), []byte(prebuilt.Stamp("test", nil)+"\n"), 0o644)
	code, stdout, errOut := run(t, "bundle", "--bin-dir", bin, "-o", out)
	if code != cli.ExitOK || strings.TrimSpace(stdout) != out {
		t.Fatalf("bundle: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	// The learners' command, with the bundle's own sha256.
	data, _ := os.ReadFile(out)
	sum := sha256.Sum256(data)
	if want := prebuilt.UpCommand(out, hex.EncodeToString(sum[:])); !strings.Contains(errOut, want) {
		t.Errorf("bundle did not print %q:\n%s", want, errOut)
	}
	// A --sha256 that is not a digest is a usage error.
	if code, _, errOut := run(t, "up", "--bin-dir", bin, "--from", out, "--sha256", "abc", "--lab", "gpu-incident"); code != cli.ExitUsage || !strings.Contains(errOut, "abc") {
		t.Errorf("up --sha256 abc: exit %d, stderr %q", code, errOut)
	}

	// up checks the lab before it installs anything: the flag parses,
	// and with a lab that is not there nothing is installed.
	into := filepath.Join(t.TempDir(), "bin")
	code, _, errOut = run(t, "up", "--bin-dir", into, "--from", out, "--name", "labmate-sandboxcmd-test", "--lab", "no-such-lab")
	if code != cli.ExitUsage || !strings.Contains(errOut, "no-such-lab") {
		t.Fatalf("up --from with a lab that is not there: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(into); !os.IsNotExist(err) {
		t.Errorf("up with a lab that is not there installed into %s (%v)", into, err)
	}
}
