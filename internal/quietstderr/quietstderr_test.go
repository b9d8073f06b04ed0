package quietstderr

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// What writes to the process's stderr while fn runs lands in stderr.log
// of the directory dir names (made if missing), the state dir the
// command line chose; the terminal gets its stderr back afterwards.
// The test writes to descriptor 2 itself, as a credential plugin's child
// or a C library would: under `go test -json` the testing package points
// os.Stderr at stdout (testing.go, "os.Stderr = os.Stdout"), so a write
// through os.Stderr would never meet the redirect.
func TestStderrGoesToTheNamedDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	err := Run(nil, func() (string, error) { return dir, nil }, func() error {
		_, err := unix.Write(2, []byte("behind the screen's back"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "stderr.log"))
	if err != nil || string(raw) != "behind the screen's back" {
		t.Fatalf("stderr.log: %q, %v", raw, err)
	}
}
