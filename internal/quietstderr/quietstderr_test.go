package quietstderr

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// What writes to the process's stderr while fn runs lands in stderr.log
// of the directory dir names (made if missing), the state dir the
// command line chose; the terminal gets its stderr back afterwards.
func TestStderrGoesToTheNamedDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	err := Run(nil, func() (string, error) { return dir, nil }, func() error {
		fmt.Fprint(os.Stderr, "behind the screen's back")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "stderr.log"))
	if err != nil || string(raw) != "behind the screen's back" {
		t.Fatalf("stderr.log: %q, %v", raw, err)
	}
}
