package checks

import (
	"slices"
	"strings"
)

// The KEY=VALUE report files the learner writes (merge.txt, slots.txt,
// rollout.txt) share one format check; only their keys and the spaces rule
// differ. Its messages are the "report." keys in messages-files.toml.

// ReportFile is one KEY=VALUE report: where it is, its keys in the order
// the step text lists them, and whether that text forbids spaces around
// '=' (step 3 says so for merge.txt; steps 7 and 8 only show `키=값`, so
// there spaces are read past, not failed).
type ReportFile struct {
	Rel      string
	Keys     []string
	NoSpaces bool
}

// KVLine is one KEY=VALUE line of a report file; key and value are trimmed.
type KVLine struct {
	N          int
	Key, Value string
}

// maxProblems caps how many problems one message words: a runaway file
// (a command's output redirected into it) must not make a message of
// megabytes.
const maxProblems = 6

// ProblemList collects the problems of one file, worded up to maxProblems
// and counted beyond.
type ProblemList struct {
	// Msg words a problem's key: the lab's lookup (Input.Msg; a lab's
	// code, its own: ProblemList{Msg: msg}).
	Msg   Lookup
	lead  string // said first and never capped (the line count)
	words []string
	extra int
}

// Add words one problem (only the first maxProblems are worded; the rest
// are counted).
func (p *ProblemList) Add(key string, kv ...any) {
	if len(p.words) < maxProblems {
		p.words = append(p.words, p.Msg(key, kv...))
	} else {
		p.extra++
	}
}

func (p *ProblemList) Empty() bool { return p.lead == "" && len(p.words) == 0 }

// String joins the problems for a message, ending with how many more
// there are.
func (p *ProblemList) String() string {
	all := slices.Clone(p.words)
	if p.lead != "" {
		all = append([]string{p.lead}, all...)
	}
	if p.extra > 0 {
		all = append(all, p.Msg("report.more", "n", p.extra))
	}
	return strings.Join(all, "; ")
}

// ParseKeyValues reads text as exactly the given keys, one KEY=VALUE per
// line, in order; a final newline and CRLF endings are fine. It returns
// the lines it could read, by key (the first of duplicates), and what is
// wrong with the shape.
func ParseKeyValues(msg Lookup, text string, keys []string, noSpaces bool) (map[string]KVLine, ProblemList) {
	lines := TextLines(text)
	byKey := map[string]KVLine{}
	problems := ProblemList{Msg: msg}
	var order []string // known keys in the order written
	for i, l := range lines {
		n := i + 1
		if strings.TrimSpace(l) == "" {
			problems.Add("report.blank", "line", n)
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			problems.Add("report.no_equals", "line", n, "text", Clip(l, 40))
			continue
		}
		key, value := strings.TrimSpace(k), strings.TrimSpace(v)
		// The step text forbids spaces around '=' only: one at the end
		// of a line is read past.
		if noSpaces && (strings.TrimRight(k, " \t") != k || strings.TrimLeft(v, " \t") != v) {
			problems.Add("report.spaces", "line", n)
		}
		if !slices.Contains(keys, key) {
			problems.Add("report.unknown_key", "line", n, "key", Clip(key, 40), "case", caseHint(msg, keys, key))
			continue
		}
		if first, dup := byKey[key]; dup {
			problems.Add("report.duplicate", "key", key, "line", n, "first", first.N)
			continue
		}
		byKey[key] = KVLine{N: n, Key: key, Value: value}
		order = append(order, key)
	}
	for _, k := range keys {
		if _, ok := byKey[k]; !ok {
			problems.Add("report.missing_key", "key", k)
		}
	}
	if len(order) == len(keys) && !slices.Equal(order, keys) {
		problems.Add("report.order", "got", strings.Join(order, ", "))
	}
	if len(lines) != len(keys) {
		problems.lead = msg("report.count", "n", len(lines), "want", len(keys))
	}
	return byKey, problems
}

// ReportShown is a report value as a message shows it: an empty value
// ("KEY=") would otherwise read as a gap in the sentence.
func ReportShown(msg Lookup, v string) string {
	if v == "" {
		return msg("report.empty_value")
	}
	return v
}

// caseHint names the key an unknown one differs from only in case.
func caseHint(msg Lookup, keys []string, key string) string {
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return msg("report.key_case", "want", k)
		}
	}
	return ""
}

// CheckReportFormat checks a report's shape and returns its lines by key
// with the format result.
func CheckReportFormat(in Input, id string, f ReportFile, text string) (map[string]KVLine, Result) {
	byKey, problems := ParseKeyValues(in.Msg, text, f.Keys, f.NoSpaces)
	path := Shown(in, f.Rel)
	if problems.Empty() {
		return byKey, Pass(id, in.Msg("report.ok", "path", path, "n", len(f.Keys)))
	}
	want, found := strings.Join(f.Keys, ", "), problems.String()
	return byKey, Fail(id, in.Msg("report.bad", "path", path, "n", len(f.Keys), "want", want, "problems", found),
		want, Clip(found, 160), f.Rel)
}

// ReadReport reads and checks a report file. When the file cannot be read
// as text, the result says why and ok is false: the value checks wait.
func ReadReport(in Input, id string, f ReportFile) (byKey map[string]KVLine, format Result, ok bool) {
	text, bad := ReadText(in, id, f.Rel)
	if bad != nil {
		return nil, *bad, false
	}
	byKey, format = CheckReportFormat(in, id, f, text)
	return byKey, format, true
}
