package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/labhub/labmate/content"
)

// ReferenceOf reads a lab's reference run (l is not nil): the trace its
// lab.toml names as reference_run, written by `labmate lab verify
// --record` from a real sandbox run; the file is read once. A lab that
// names none, or whose file is missing, has no reference run; any other
// failure to read the file is an error naming it.
func ReferenceOf(l *content.Lab) (*Trace, error) {
	raw, err := []byte(nil), fs.ErrNotExist
	if l.ReferenceRun != "" {
		raw, err = l.ReadFile(l.ReferenceRun)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New(content.Msg("trace.no_reference", "lab", l.ID))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", content.Msg("trace.reference_unreadable", "lab", l.ID, "path", path.Join(l.Where, l.ReferenceRun)), err)
	}
	return Read(ReferenceName, bytes.NewReader(raw))
}

// HasReferenceOf reports whether a lab names a reference run and has its
// file (without reading it).
func HasReferenceOf(l *content.Lab) bool {
	if l == nil || l.ReferenceRun == "" {
		return false
	}
	_, err := fs.Stat(l.FS, l.ReferenceRun)
	return err == nil
}
