package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"github.com/labhub/labmate/internal/safefile"
	"io"
	"strings"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// Trace is a trace read whole into memory (a full lab run is well under a
// megabyte).
type Trace struct {
	// Name is what the trace was opened as: a path, or "reference".
	Name    string
	Header  Header
	Records []Record
	// Warnings are lines that were skipped (a truncated last line, record
	// kinds this version does not know). Replay goes on without them.
	Warnings []*LineError
}

// Record is one observation of a trace.
type Record struct {
	Line int           // 1-based line in the file
	At   time.Duration // since Header.Started
	Obs  observe.Observation
}

// LineError says which line of a trace is wrong and why, in Korean. It is
// returned when a trace cannot be replayed and listed in Trace.Warnings for
// lines that were skipped.
type LineError struct {
	Name   string
	Line   int
	Code   string // what is wrong, for tools: "truncated", "corrupt", "newer_version", ...
	Reason string // the same, in Korean
}

func lineError(name string, line int, key string, kv ...any) *LineError {
	return &LineError{Name: name, Line: line, Code: key, Reason: content.Msg("trace."+key, kv...)}
}

func (e *LineError) Error() string {
	return content.Msg("trace.line", "name", e.Name, "line", e.Line, "reason", e.Reason)
}

// MaxLineSize caps one line of a trace: a file record holds at most
// observe.MaxFileSize bytes, base64-encoded, plus a little.
const MaxLineSize = 4*observe.MaxFileSize + 64<<10

// ReferenceName is the name of a lab's built-in reference run: the Name of
// the trace ReferenceOf reads, and what `labmate replay` and the other
// commands that take a trace accept for it (they call ReferenceOf).
const ReferenceName = "reference"

// Open reads a trace file. A path is only a path: "reference" is a file of
// that name; the reference run is ReferenceOf's.
func Open(path string) (*Trace, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, errors.New(content.Msg("trace.open_failed", "name", path, "err", err))
	}
	defer f.Close()
	return Read(path, f)
}

// Read parses a trace. A missing or foreign header, a newer format
// version, a corrupted line or a record that cannot be decoded stop it with
// a *LineError; a truncated last line (what a crash while writing leaves)
// and unknown record kinds are skipped and listed in Warnings.
func Read(name string, r io.Reader) (*Trace, error) {
	t := &Trace{Name: name}
	br := bufio.NewReaderSize(r, 64<<10)
	fail := func(n int, key string, kv ...any) (*Trace, error) {
		return nil, lineError(name, n, key, kv...)
	}
	for n := 1; ; n++ {
		raw, complete, err := readLine(br)
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				return fail(n, "line_too_long", "max", MaxLineSize)
			}
			return fail(n, "read_failed", "err", err)
		}
		if raw == nil { // end of input
			if n == 1 {
				return fail(1, "empty")
			}
			return t, nil
		}
		if n == 1 {
			// An editor may have added a byte order mark.
			raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
			if err := t.readHeader(raw); err != nil {
				return nil, err
			}
			continue
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		rec, lerr, skip := t.readRecord(n, raw, complete)
		if lerr != nil {
			if skip {
				t.Warnings = append(t.Warnings, lerr)
				continue
			}
			return nil, lerr
		}
		t.Records = append(t.Records, rec)
	}
}

var errLineTooLong error = lineTooLong{}

type lineTooLong struct{}

func (lineTooLong) Error() string { return "line too long" }

// readLine returns the next line without its newline, whether it ended in
// one, and nil at the end of input.
func readLine(br *bufio.Reader) ([]byte, bool, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineSize {
			return nil, false, errLineTooLong
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return nil, false, nil
			}
			return buf, false, nil
		default:
			return nil, false, err
		}
	}
}

func (t *Trace) readHeader(raw []byte) error {
	fail := func(key string, kv ...any) error {
		return lineError(t.Name, 1, key, kv...)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fail("no_header", "err", jsonReason(raw, err))
	}
	if _, isRecord := probe["kind"]; isRecord {
		if _, isHeader := probe["format"]; !isHeader {
			return fail("header_is_record")
		}
	}
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil {
		return fail("no_header", "err", jsonReason(raw, err))
	}
	switch {
	case h.Format != Format:
		return fail("wrong_format", "format", h.Format, "want", Format)
	case h.Version > Version:
		return fail("newer_version", "version", h.Version, "max", Version)
	case h.Version < 1:
		return fail("bad_version", "version", h.Version)
	case h.Lab == "":
		return fail("no_lab")
	}
	t.Header = h
	return nil
}

// readRecord decodes one record line. skip says the error is a warning:
// the line can be left out and the rest replayed.
func (t *Trace) readRecord(n int, raw []byte, complete bool) (Record, *LineError, bool) {
	lerr := func(key string, kv ...any) *LineError {
		return lineError(t.Name, n, key, kv...)
	}
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		if !complete {
			// Only the last line can lack its newline: the writer stopped
			// in the middle of it.
			return Record{}, lerr("truncated"), true
		}
		return Record{}, lerr("corrupt", "err", jsonReason(raw, err)), false
	}
	if l.Kind == "" {
		var probe map[string]json.RawMessage
		_ = json.Unmarshal(raw, &probe)
		if _, ok := probe["format"]; ok {
			return Record{}, lerr("second_header"), false
		}
		return Record{}, lerr("no_kind"), false
	}
	o, err := decode(l, t.Header.Version)
	if err != nil {
		var uk errUnknownKind
		if errors.As(err, &uk) {
			return Record{}, lerr("unknown_kind", "kind", l.Kind, "max", Version), true
		}
		return Record{}, lerr("bad_record", "kind", l.Kind, "err", err), false
	}
	if o.Time.IsZero() {
		o.Time = t.Header.Started.Add(time.Duration(l.AtMS) * time.Millisecond)
	}
	return Record{Line: n, At: time.Duration(l.AtMS) * time.Millisecond, Obs: o}, nil, false
}

// jsonReason describes a JSON error with the column it happened at, when
// encoding/json says.
func jsonReason(raw []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if strings.HasPrefix(se.Error(), "unexpected end") {
			return content.Msg("trace.json_cut", "len", len(raw))
		}
		return content.Msg("trace.json_at", "col", se.Offset, "err", se.Error())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return content.Msg("trace.json_type", "field", te.Field, "value", te.Value, "want", te.Type.String())
	}
	return err.Error()
}

// Duration is the time from the trace's start to its last record.
func (t *Trace) Duration() time.Duration {
	if len(t.Records) == 0 {
		return 0
	}
	return t.Records[len(t.Records)-1].At
}
