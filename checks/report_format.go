package checks

import (
	"slices"
	"strings"
)

// The KEY=VALUE report files the learner writes (merge.txt, slots.txt,
// rollout.txt) share one format check; only their keys and the spaces rule
// differ. Its messages are the "report." keys in messages-files.toml.

// reportFile is one KEY=VALUE report: where it is, its keys in the order
// the step text lists them, and whether that text forbids spaces around
// '=' (step 3 says so for merge.txt; steps 7 and 8 only show `키=값`, so
// there spaces are read past, not failed).
type reportFile struct {
	rel      string
	keys     []string
	noSpaces bool
}

// kvLine is one KEY=VALUE line of a report file; key and value are trimmed.
type kvLine struct {
	n          int
	key, value string
}

// maxProblems caps how many problems one message words: a runaway file
// (a command's output redirected into it) must not make a message of
// megabytes.
const maxProblems = 6

// problemList collects the problems of one file, worded up to maxProblems
// and counted beyond.
type problemList struct {
	lead  string // said first and never capped (the line count)
	words []string
	extra int
}

func (p *problemList) add(key string, kv ...any) {
	if len(p.words) < maxProblems {
		p.words = append(p.words, msg(key, kv...))
	} else {
		p.extra++
	}
}

func (p *problemList) empty() bool { return p.lead == "" && len(p.words) == 0 }

// String joins the problems for a message, ending with how many more
// there are.
func (p *problemList) String() string {
	all := slices.Clone(p.words)
	if p.lead != "" {
		all = append([]string{p.lead}, all...)
	}
	if p.extra > 0 {
		all = append(all, msg("report.more", "n", p.extra))
	}
	return strings.Join(all, "; ")
}

// parseKeyValues reads text as exactly the given keys, one KEY=VALUE per
// line, in order; a final newline and CRLF endings are fine. It returns
// the lines it could read, by key (the first of duplicates), and what is
// wrong with the shape.
func parseKeyValues(text string, keys []string, noSpaces bool) (map[string]kvLine, problemList) {
	lines := textLines(text)
	byKey := map[string]kvLine{}
	var (
		problems problemList
		order    []string // known keys in the order written
	)
	for i, l := range lines {
		n := i + 1
		if strings.TrimSpace(l) == "" {
			problems.add("report.blank", "line", n)
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			problems.add("report.no_equals", "line", n, "text", clip(l, 40))
			continue
		}
		key, value := strings.TrimSpace(k), strings.TrimSpace(v)
		// The step text forbids spaces around '=' only: one at the end
		// of a line is read past.
		if noSpaces && (strings.TrimRight(k, " \t") != k || strings.TrimLeft(v, " \t") != v) {
			problems.add("report.spaces", "line", n)
		}
		if !slices.Contains(keys, key) {
			problems.add("report.unknown_key", "line", n, "key", clip(key, 40), "case", caseHint(keys, key))
			continue
		}
		if first, dup := byKey[key]; dup {
			problems.add("report.duplicate", "key", key, "line", n, "first", first.n)
			continue
		}
		byKey[key] = kvLine{n: n, key: key, value: value}
		order = append(order, key)
	}
	for _, k := range keys {
		if _, ok := byKey[k]; !ok {
			problems.add("report.missing_key", "key", k)
		}
	}
	if len(order) == len(keys) && !slices.Equal(order, keys) {
		problems.add("report.order", "got", strings.Join(order, ", "))
	}
	if len(lines) != len(keys) {
		problems.lead = msg("report.count", "n", len(lines), "want", len(keys))
	}
	return byKey, problems
}

// reportShown is a report value as a message shows it: an empty value
// ("KEY=") would otherwise read as a gap in the sentence.
func reportShown(v string) string {
	if v == "" {
		return msg("report.empty_value")
	}
	return v
}

// caseHint names the key an unknown one differs from only in case.
func caseHint(keys []string, key string) string {
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return msg("report.key_case", "want", k)
		}
	}
	return ""
}

// checkReportFormat checks a report's shape and returns its lines by key
// with the format result.
func checkReportFormat(in Input, id string, f reportFile, text string) (map[string]kvLine, Result) {
	byKey, problems := parseKeyValues(text, f.keys, f.noSpaces)
	path := shown(in, f.rel)
	if problems.empty() {
		return byKey, passed(id, msg("report.ok", "path", path, "n", len(f.keys)))
	}
	want, found := strings.Join(f.keys, ", "), problems.String()
	return byKey, failed(id, msg("report.bad", "path", path, "n", len(f.keys), "want", want, "problems", found),
		want, clip(found, 160), f.rel)
}

// readReport reads and checks a report file. When the file cannot be read
// as text, the result says why and ok is false: the value checks wait.
func readReport(in Input, id string, f reportFile) (byKey map[string]kvLine, format Result, ok bool) {
	text, bad := readText(in, id, f.rel)
	if bad != nil {
		return nil, *bad, false
	}
	byKey, format = checkReportFormat(in, id, f, text)
	return byKey, format, true
}
