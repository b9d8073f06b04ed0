package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/lockfile"
)

// Save writes the report, as JSON or markdown in local time, to stdout
// or, when path is set, to that file (atomically), saying so on stderr.
// Its error is Korean.
func (r Report) Save(asJSON bool, path string, stdout, stderr io.Writer) error {
	var err error
	var buf bytes.Buffer
	if asJSON {
		err = r.WriteJSON(&buf)
	} else {
		_, err = buf.WriteString(r.Markdown(time.Local))
	}
	if err == nil && path == "" {
		_, err = stdout.Write(buf.Bytes())
	} else if err == nil {
		err = lockfile.WriteAtomic(path, buf.Bytes(), 0o644)
		if err == nil {
			fmt.Fprintln(stderr, content.Msg("ops.report.written", "path", path))
		}
	}
	if err != nil {
		if path == "" {
			path = "stdout"
		}
		return errors.New(content.Msg("ops.report.write_failed", "path", path, "err", err))
	}
	return nil
}
