package trace

import (
	"bytes"
	"embed"
	"errors"
	"io/fs"

	"github.com/labhub/labmate/content"
)

// references holds the built-in reference runs, one <lab>.jsonl per lab,
// written by scripts/record-reference.sh from a real sandbox run.
//
//go:embed reference
var references embed.FS

// ReferencePath is where a lab's reference run lives in this package's
// source tree (scripts/record-reference.sh writes it there).
func ReferencePath(lab string) string { return "reference/" + lab + ".jsonl" }

// Reference reads the built-in reference run of a lab.
func Reference(lab string) (*Trace, error) {
	raw, err := references.ReadFile(ReferencePath(lab))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New(content.Msg("trace.no_reference", "lab", lab))
	}
	if err != nil {
		return nil, err
	}
	return Read(ReferenceName, bytes.NewReader(raw))
}

// HasReference reports whether a lab's reference run is built in.
func HasReference(lab string) bool {
	_, err := fs.Stat(references, ReferencePath(lab))
	return err == nil
}
