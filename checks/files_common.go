package checks

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labhub/labmate/observe"
)

// Shown is the path a learner should look at: under the lab root in use.
func Shown(in Input, rel string) string {
	if in.Root == "" {
		return rel
	}
	return filepath.Join(in.Root, filepath.FromSlash(rel))
}

func Pass(id, message string) Result {
	return Result{ID: id, Status: Passed, Message: message}
}

func Fail(id, message, expected, observed, where string) Result {
	return Result{ID: id, Status: Failed, Message: message, Expected: expected, Observed: observed, Where: where}
}

func Wait(id, message string) Result {
	return Result{ID: id, Status: Waiting, Message: message}
}

// Where names a position in a lab file for Result.Where ("path:line").
func Where(rel string, line int) string {
	if line <= 0 {
		return rel
	}
	return fmt.Sprintf("%s:%d", rel, line)
}

// Place is a position in a lab file: the file relative to the lab root
// and a 1-based line and column (Col 0: the line alone).
type Place struct {
	File      string
	Line, Col int
}

// PlaceOf reads back a position this package writes in Result.Where
// ("path:line" by Where, "path:line:column" by TOMLDoc.At and a YAML
// manifest's places): the TUI's key that opens the file there. A Where
// without a line (a file alone, a cluster object) is no place.
func PlaceOf(where string) (Place, bool) {
	rest, last, ok := cutNumber(where)
	if !ok {
		return Place{}, false
	}
	if file, line, ok := cutNumber(rest); ok {
		return Place{File: file, Line: line, Col: last}, file != ""
	}
	return Place{File: rest, Line: last}, rest != ""
}

// cutNumber cuts ":N" (N > 0) off the end of s.
func cutNumber(s string) (rest string, n int, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n <= 0 || strings.HasPrefix(s[i+1:], "+") {
		return "", 0, false
	}
	return s[:i], n, true
}

// ReadText returns the text of the file at rel, or a failed result (with
// the given ID) saying what was found there instead of a text file.
func ReadText(in Input, id, rel string) (string, *Result) {
	f := in.Snap.File(rel)
	p := Shown(in, rel)
	want := in.Msg("files.expect.text_file")
	var r Result
	switch f.State {
	case observe.FilePresent:
		if off, nul := firstNonText(f.Content); off >= 0 {
			// Positions are 1-based, like the line numbers of an editor.
			line := bytes.Count(f.Content[:off], []byte("\n")) + 1
			at := Where(rel, line)
			if nul {
				r = Fail(id, in.Msg("files.state.binary_nul", "path", p, "offset", off+1, "line", line), want, in.Msg("files.seen.binary"), at)
			} else {
				r = Fail(id, in.Msg("files.state.binary_utf8", "path", p, "offset", off+1, "line", line, "byte", fmt.Sprintf("0x%02X", f.Content[off])), want, in.Msg("files.seen.binary"), at)
			}
			return "", &r
		}
		if len(bytes.TrimSpace(f.Content)) == 0 {
			r = Fail(id, in.Msg("files.state.empty", "path", p), want, in.Msg("files.seen.empty"), rel)
			return "", &r
		}
		return string(f.Content), nil
	case observe.FileIsDir:
		r = Fail(id, in.Msg("files.state.dir", "path", p), want, in.Msg("files.seen.dir"), rel)
	case observe.FileUnreadable:
		why, seen := unreadableReason(in.Msg, f.Err)
		r = Fail(id, in.Msg("files.state.unreadable", "path", p, "err", why), want, seen, rel)
	case observe.FileTooLarge:
		r = Fail(id, in.Msg("files.state.too_large", "path", p, "size", f.Size, "max", observe.MaxFileSize), want, in.Msg("files.seen.too_large", "size", f.Size), rel)
	default: // missing, or a state this code does not know yet
		r = Fail(id, in.Msg("files.state.missing", "path", p), want, in.Msg("files.seen.missing"), rel)
	}
	return "", &r
}

// unreadableReason words why a file could not be read: the values the
// file source sets itself in Korean only, an operating system error in
// Korean when it is a known one, followed by its own text.
func unreadableReason(msg Lookup, err string) (why, seen string) {
	switch err {
	case observe.FileErrNotRegular:
		return msg("files.unreadable.not_regular"), msg("files.seen.not_regular")
	case observe.FileErrDanglingSymlink:
		return msg("files.unreadable.dangling"), msg("files.seen.dangling")
	}
	seen = msg("files.seen.unreadable")
	for _, known := range []struct{ text, key string }{
		{"permission denied", "files.unreadable.permission"},
		{"too many levels of symbolic links", "files.unreadable.loop"},
	} {
		if strings.Contains(err, known.text) {
			return msg(known.key) + ": " + err, seen
		}
	}
	if err == "" {
		return msg("files.none"), seen
	}
	return err, seen
}

// firstNonText returns the byte offset of the first NUL byte (nul true) or
// the first byte that is not valid UTF-8, or -1 when b is text.
func firstNonText(b []byte) (int, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		if j := firstInvalidUTF8(b[:i]); j >= 0 {
			return j, false
		}
		return i, true
	}
	return firstInvalidUTF8(b), false
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// LineAt returns line n (1-based) of text without its line ending, clipped
// for a one-line message.
func LineAt(text string, n int) string {
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return Clip(strings.TrimRight(lines[n-1], "\r"), 80)
}

// TextLines splits a small text file into lines without their endings,
// dropping one final newline.
func TextLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	return strings.Split(text, "\n")
}

// Clip shortens s to at most n runes, marking the cut.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "..."
}

// JoinOr renders a list for a message, or the "none" word (in the lab's
// words, msg) when empty.
func JoinOr(msg Lookup, items []string, sep string) string {
	if len(items) == 0 {
		return msg("files.none")
	}
	return strings.Join(items, sep)
}
