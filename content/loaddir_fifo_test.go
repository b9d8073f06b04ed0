package content

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO where a lab file should be is refused when the lab directory is
// read, never waited on: lab.toml itself, or a page lab.toml names.
func TestLoadDirNeverBlocksOnAFIFO(t *testing.T) {
	for _, fifo := range []string{"lab.toml", "intro.md"} {
		dir := t.TempDir()
		if fifo != "lab.toml" {
			lab := "id = \"fifo\"\ntitle = \"FIFO\"\nintro = \"intro.md\"\n"
			if err := os.WriteFile(filepath.Join(dir, "lab.toml"), []byte(lab), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, fifo)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		// Should the open block after all, a writer lets it end.
		t.Cleanup(func() {
			if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
				f.Close()
			}
		})
		done := make(chan error, 1)
		go func() {
			_, err := LoadDir(dir)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s a FIFO: the lab loaded", fifo)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("LoadDir blocked on a FIFO named %s", fifo)
		}
	}
}
