package admin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
)

// Entry is one learner of `class init --learners`: a slot (ID), a name
// for the roster (Name), or both. An entry with a name and no ID gets a
// slot when the class is planned (Plan): the one it had in the class
// before, else a free learner-NN.
type Entry struct {
	// Line is the entry's line in the roster file (0 for a count).
	Line int
	ID   string
	Name string
}

// Learner is a learner of the planned class: the slot and the roster's
// name ("" when it has none).
type Learner struct {
	ID   string
	Name string
}

// LearnersFromCount names n learners learner-01, learner-02, ...
func LearnersFromCount(n int) []string {
	width := max(len(fmt.Sprint(n)), 2)
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("learner-%0*d", width, i+1)
	}
	return out
}

// maxLearners bounds a class.
const maxLearners = 1000

// Learners reads `class init --learners`: a count (1 to 1000: learner-01,
// ...) or a roster file (ReadRoster). Its errors are Korean, naming
// every bad line of the file at once.
func Learners(spec string) ([]Entry, error) {
	switch n, err := strconv.Atoi(spec); {
	case spec == "":
		return nil, refuse("class.cli.learners_missing")
	case err == nil:
		if n < 1 || n > maxLearners {
			return nil, refuse("class.cli.learners_range", "n", n)
		}
		var out []Entry
		for _, id := range LearnersFromCount(n) {
			out = append(out, Entry{ID: id})
		}
		return out, nil
	default:
		f, err := os.Open(spec)
		if err != nil {
			return nil, refuse("class.cli.learners_file", "path", spec, "err", err)
		}
		defer f.Close()
		entries, err := ReadRoster(f)
		var bad RosterError
		switch {
		case errors.As(err, &bad):
			bad.Path = spec
			return nil, bad
		case err != nil:
			return nil, refuse("class.cli.learners_file", "path", spec, "err", err)
		case len(entries) == 0:
			return nil, refuse("class.cli.learners_empty", "path", spec)
		case len(entries) > maxLearners:
			return nil, refuse("class.cli.learners_range", "n", len(entries))
		}
		return entries, nil
	}
}

// Why a roster line is refused.
type Problem string

const (
	// BadID: the line names a slot that cannot be one (too long, a
	// character a Kubernetes name may not hold).
	BadID Problem = "bad_id"
	// BadName: a name longer than a record's, or holding a control
	// character.
	BadName Problem = "bad_name"
	// DupID and DupName: the slot or the name is on an earlier line.
	DupID   Problem = "dup_id"
	DupName Problem = "dup_name"
)

// BadLine is one refused line of a roster.
type BadLine struct {
	Line int
	Text string
	Why  Problem
	// First is the earlier line of a duplicate.
	First int
}

// RosterError is every refused line of a roster file, said at once.
type RosterError struct {
	Path  string
	Lines []BadLine
}

func (e RosterError) Error() string {
	lines := []string{content.Msg("class.cli.roster_bad", "path", e.Path, "n", len(e.Lines))}
	for _, l := range e.Lines {
		lines = append(lines, "  "+content.Msg("class.cli.roster."+string(l.Why), "line", l.Line, "text", termtext.Clean(l.Text), "first", l.First, "max", class.MaxNameRunes))
	}
	return strings.Join(append(lines, content.Msg("class.cli.roster_format")), "\n")
}

// ReadRoster reads a roster: one learner a line, in any of three forms,
// blank lines and lines starting with # skipped:
//
//	learner-07          a slot, as a Kubernetes name (any case: Kim is kim)
//	learner-07,김지민    a slot and the name the board shows (a tab works too)
//	김지민               a name alone: Plan gives it a slot
//
// A file saved by Windows' Notepad or Excel (a UTF-8 byte order mark,
// CRLF line ends) reads the same. Every line that cannot be read is in
// the RosterError, not only the first.
func ReadRoster(r io.Reader) ([]Entry, error) {
	var (
		out        []Entry
		bad        []BadLine
		ids, names = map[string]int{}, map[string]int{}
	)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Bytes()
		if n == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")) // Notepad's and Excel's UTF-8 mark
		}
		line := strings.TrimSpace(string(raw)) // a CRLF's CR too
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, why := readEntry(line)
		e.Line = n
		refused := len(bad)
		if why != "" {
			bad = append(bad, BadLine{Line: n, Text: line, Why: why})
		}
		for _, u := range []struct {
			key  string
			seen map[string]int
			why  Problem
		}{{e.ID, ids, DupID}, {e.Name, names, DupName}} {
			if u.key == "" {
				continue
			}
			if first, ok := u.seen[u.key]; ok {
				bad = append(bad, BadLine{Line: n, Text: line, Why: u.why, First: first})
			} else {
				u.seen[u.key] = n
			}
		}
		if len(bad) == refused {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, RosterError{Lines: bad}
	}
	return out, nil
}

// readEntry reads one roster line (trimmed, not blank).
func readEntry(line string) (Entry, Problem) {
	if i := strings.IndexAny(line, ",\t"); i >= 0 {
		if key := strings.TrimSpace(line[:i]); slotLike(key) {
			e := Entry{ID: strings.ToLower(key), Name: strings.TrimSpace(line[i+1:])}
			switch {
			case !class.ValidLearner(e.ID):
				return e, BadID
			case e.Name != "" && !class.ValidName(e.Name):
				return e, BadName
			}
			return e, ""
		}
	}
	if slotLike(line) {
		e := Entry{ID: strings.ToLower(line)}
		if e.ID != line {
			e.Name = line // Kim: slot kim, shown as Kim
		}
		if !class.ValidLearner(e.ID) {
			return e, BadID
		}
		return e, ""
	}
	if !class.ValidName(line) {
		return Entry{Name: line}, BadName
	}
	return Entry{Name: line}, ""
}

// slotLike: the text is made of what a slot is made of, in any case
// (and the mistakes a slot could hold: _ and .), so it was meant as one.
func slotLike(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// assign gives every entry its slot: its own ID; for a name alone, the
// slot the class's roster (before) gave that name, unless an entry
// claims it; else the first free learner-NN. A slot the class had is
// never given to a new name: whoever holds its kubeconfig would publish
// as them.
func assign(entries []Entry, before map[string]string, had []string) []Learner {
	taken := map[string]bool{}
	for _, id := range had {
		taken[id] = true
	}
	claimed := map[string]bool{}
	for _, e := range entries {
		if e.ID != "" {
			claimed[e.ID] = true
		}
	}
	slotOf := map[string]string{}
	for slot, name := range before {
		if !claimed[slot] {
			slotOf[name] = slot
		}
	}
	width := max(len(fmt.Sprint(len(entries))), 2)
	next := 1
	free := func() string {
		for ; ; next++ {
			id := fmt.Sprintf("learner-%0*d", width, next)
			if !taken[id] && !claimed[id] {
				next++
				return id
			}
		}
	}
	out := make([]Learner, len(entries))
	for i, e := range entries {
		id := e.ID
		if id == "" {
			if slot, ok := slotOf[e.Name]; ok {
				id = slot
				delete(slotOf, e.Name)
			} else {
				id = free()
			}
			claimed[id] = true
		}
		out[i] = Learner{ID: id, Name: e.Name}
	}
	return out
}

func refuse(key string, kv ...any) error { return errors.New(content.Msg(key, kv...)) }
