package labstore

import (
	"fmt"
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
)

// Reason says why a lab or an archive was refused.
type Reason string

const (
	// Missing: no lab directory or archive file at the path given.
	Missing Reason = "missing"
	// NotArchive: the bytes are not a gzip-compressed tar.
	NotArchive Reason = "not-archive"
	// UnsafePath: an entry's name is absolute, climbs out with "..", or
	// is not a clean relative path.
	UnsafePath Reason = "unsafe-path"
	// Special: a symlink, hard link, device, FIFO or other entry that is
	// not a regular file or a directory.
	Special Reason = "special"
	// TooBig: a file, the lab or the archive is over its limit.
	TooBig Reason = "too-big"
	// TooMany: more entries than MaxEntries.
	TooMany Reason = "too-many"
	// Duplicate: two entries of the same name.
	Duplicate Reason = "duplicate"
	// NotALab: the files do not load or compile as a lab (Problems).
	NotALab Reason = "not-a-lab"
	// GoChecks: steps with no declarative checks, which only Go compiled
	// into labmate could decide (Steps).
	GoChecks Reason = "go-checks"
	// BadID: the lab's ID could not name a directory of the store.
	BadID Reason = "bad-id"
	// NotInstalled: Remove or Open of a lab the store does not hold.
	NotInstalled Reason = "not-installed"
)

// Refusal is a lab or archive labstore will not pack, install or find,
// with what a caller needs to act on it; Error is its Korean explanation.
type Refusal struct {
	Reason Reason
	// Entry is the archive entry or lab file concerned, if one is.
	Entry string
	// Size and Limit are what was found and allowed (TooBig, TooMany).
	Size, Limit int64
	// Problems are the authoring errors found (NotALab), each with its
	// file, line and column where known.
	Problems []*content.Problem
	// Steps are the steps that need Go (GoChecks), as "N (id)".
	Steps []string
	// Lab is the lab's ID (GoChecks, BadID, NotInstalled).
	Lab string
}

// Error words the refusal in Korean. It quotes what the lab or archive
// holds (entry names, an author's keys and text), so it passes termtext:
// it is printed to a terminal.
func (r *Refusal) Error() string { return termtext.Clean(r.words()) }

func (r *Refusal) words() string {
	switch r.Reason {
	case TooBig:
		if r.Entry == "" {
			return content.Msg("labstore.too_big_total", "size", mib(r.Size), "limit", mib(r.Limit))
		}
		return content.Msg("labstore.too_big_file", "entry", r.Entry, "size", mib(r.Size), "limit", mib(r.Limit))
	case TooMany:
		return content.Msg("labstore.too_many", "limit", r.Limit)
	case NotALab:
		var lines []string
		for _, p := range r.Problems {
			lines = append(lines, where(p)+p.Msg)
		}
		return content.Msg("labstore.not_a_lab", "problems", strings.Join(lines, "\n"))
	case GoChecks:
		return content.Msg("labstore.go_checks", "lab", r.Lab, "steps", strings.Join(r.Steps, ", "))
	case BadID, NotInstalled:
		return content.Msg("labstore."+strings.ReplaceAll(string(r.Reason), "-", "_"), "lab", r.Lab)
	default:
		return content.Msg("labstore."+strings.ReplaceAll(string(r.Reason), "-", "_"), "entry", r.Entry)
	}
}

// where words a problem's place in Korean: "lab.toml 12행 3열: ".
func where(p *content.Problem) string {
	switch {
	case p.File == "":
		return ""
	case p.Line > 0 && p.Col > 0:
		return content.Msg("labstore.at_line_col", "file", p.File, "line", p.Line, "col", p.Col)
	case p.Line > 0:
		return content.Msg("labstore.at_line", "file", p.File, "line", p.Line)
	}
	return content.Msg("labstore.at_file", "file", p.File)
}

// mib words a size in MiB with one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
