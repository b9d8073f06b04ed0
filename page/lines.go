package page

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// The line-breaking rule, for a page's lines that glamour let overflow
// and for the TUI's own text (Wrap):
//
//   - Lines break at blanks, filled greedily; a word that does not fit
//     the rest of a line starts the next one whole.
//   - A word longer than a whole line (a TOML key, a path, a command
//     whose blanks code.go marked) starts a line of its own, or follows a
//     list marker, and is broken where a reader still sees one token going
//     on, taking the last place that fits of the best kind there is:
//     1. a blank of the code (a marked one) or after a "/" (not inside
//        "//"), outside quotes;
//     2. after a "." that separates TOML key or field path segments (a
//        letter, "_", "[" or a quote follows: never inside a number such
//        as 1.16.2), outside quotes;
//     3. a blank inside quotes;
//     4. after a "/" or such a "." inside quotes, after a hyphen or "_",
//        or between a lower-case and an upper-case letter (camelCase);
//     5. only when none of these fits: at the last character that does.
//     A quoted string is broken only when no place outside it fits, so
//     "io.containerd.runc.v2" stays whole wherever it can, and no piece of
//     a broken word is punctuation alone (no lone "." or "]" on a line).
//   - Every line fits its width with a spare cell for each
//     East-Asian-ambiguous character (Cells).
//
// A break is never marked: a sign for it would be read as part of the code.

// breakLines breaks s (plain or styled with SGR) into lines of at most
// limit cells by the rule above; the lines of a string with newlines
// break apart. It returns at least one line.
func breakLines(s string, limit int) []string {
	limit = max(limit, 1)
	var out []string
	for _, part := range strings.Split(s, "\n") {
		out = append(out, breakLine(part, limit)...)
	}
	return out
}

// span is a byte range of a line's visible text.
type span struct{ from, to int }

func breakLine(s string, limit int) []string {
	if Cells(s) <= limit {
		return []string{s}
	}
	v := ansi.Strip(s)
	var out []span
	// The line being filled, and its cells. The first one starts at 0,
	// keeping the text's leading blanks.
	cur, cells := span{0, 0}, 0
	for _, w := range wordsOf(v) {
		wc := Cells(v[w.from:w.to])
		gap := w.from - cur.to // blanks: one byte, one cell each
		if cells+gap+wc <= limit {
			cur.to, cells = w.to, cells+gap+wc
			continue
		}
		empty := cur.to == cur.from
		if !empty && wc <= limit {
			out = append(out, cur)
			cur, cells = w, wc
			continue
		}
		// A word longer than the room left: it follows a list marker (or
		// starts the line), else it starts a line of its own.
		start := cur.from
		if !empty && !isMarker(v[cur.from:cur.to]) {
			out = append(out, cur)
			start = w.from
		}
		pieces := splitWord(v, start, w, limit)
		out = append(out, pieces[:len(pieces)-1]...)
		cur = pieces[len(pieces)-1]
		cells = Cells(v[cur.from:cur.to])
	}
	out = append(out, cur)
	lines := make([]string, len(out))
	plain := !strings.ContainsRune(s, '\x1b')
	for i, sp := range out {
		if plain {
			lines[i] = v[sp.from:sp.to]
		} else {
			lines[i] = ansi.Cut(s, ansi.StringWidth(v[:sp.from]), ansi.StringWidth(v[:sp.to]))
		}
	}
	return lines
}

// wordsOf is the byte ranges of v's words: runs of anything but blanks.
func wordsOf(v string) []span {
	var out []span
	from := -1
	for i, r := range v {
		switch {
		case r == ' ' && from >= 0:
			out = append(out, span{from, i})
			from = -1
		case r != ' ' && from < 0:
			from = i
		}
	}
	if from >= 0 {
		out = append(out, span{from, len(v)})
	}
	return out
}

// isMarker reports whether a line so far is only a list marker, which a
// long word may follow rather than leave alone.
func isMarker(s string) bool { return listMarker.MatchString(s) }

var listMarker = regexp.MustCompile(`^ *([-*+]|[0-9]+[.)])$`)

// splitWord breaks word w of v into pieces: the first runs from start (the
// line it joins; start == w.from when it is a line of its own) and every
// piece fits limit cells.
func splitWord(v string, start int, w span, limit int) []span {
	breaks := breaksIn(v[w.from:w.to])
	var out []span
	from := start
	for Cells(v[from:w.to]) > limit {
		at := bestBreak(v, w, from, breaks, limit)
		if at >= w.to {
			break // one character wider than the line: it overflows, cut later
		}
		out = append(out, span{from, at})
		from = at
	}
	return append(out, span{from, w.to})
}

// A place a word may break, by the tier of the rule (1 is best).
type wordBreak struct {
	at   int // byte offset in the word: the break comes before it
	tier int
}

// breaksIn lists where word may break, tiers 1 to 4 of the rule.
func breaksIn(word string) []wordBreak {
	var out []wordBreak
	var dq, sq bool // inside "..." or '...'
	for i, m := range word {
		r := plainOf(m)
		switch r {
		case '"':
			dq = !dq
		case '\'':
			sq = !sq
		}
		_, size := utf8.DecodeRuneInString(word[i:])
		at := i + size
		if at >= len(word) {
			break
		}
		next, _ := utf8.DecodeRuneInString(word[at:])
		next = plainOf(next)
		quoted := dq || sq
		tier := 0
		switch {
		case r == ' ': // a blank of code: the marked kind, inside a word
			tier = pick(quoted, 1, 3)
		case r == '/' && next != '/':
			tier = pick(quoted, 1, 4)
		case r == '.' && (unicode.IsLetter(next) || strings.ContainsRune(`_["'`, next)):
			tier = pick(quoted, 2, 4)
		case r == '-' || r == '_':
			if next != r {
				tier = 4
			}
		case unicode.IsLower(r) && unicode.IsUpper(next):
			tier = 4
		}
		if tier > 0 {
			out = append(out, wordBreak{at, tier})
		}
	}
	return out
}

func pick(quoted bool, outside, inside int) int {
	if quoted {
		return inside
	}
	return outside
}

// bestBreak is where the piece of w starting at from ends: the last break
// of the best tier that fits limit cells and leaves no piece that is
// punctuation alone, else the last character that fits (at least one).
func bestBreak(v string, w span, from int, breaks []wordBreak, limit int) int {
	best, bestTier := -1, 5
	for _, b := range breaks {
		at := w.from + b.at
		if at <= from || b.tier > bestTier {
			continue
		}
		if Cells(v[from:at]) > limit || !hasWordChar(v[max(from, w.from):at]) || !hasWordChar(v[at:w.to]) {
			continue
		}
		if b.tier < bestTier || at > best {
			best, bestTier = at, b.tier
		}
	}
	if best > 0 {
		return best
	}
	// Tier 5: the most whole characters that fit, at least one.
	rest := v[from:w.to]
	fit := ansi.Truncate(rest, limit, "")
	for fit != "" && Cells(fit) > limit {
		fit = ansi.Truncate(rest, ansi.StringWidth(fit)-1, "")
	}
	for n := 1; fit == "" && n <= 4; n++ {
		fit = ansi.Truncate(rest, n, "") // a character wider than limit
	}
	if fit == "" {
		_, size := utf8.DecodeRuneInString(rest)
		return from + size
	}
	return from + len(fit)
}

// hasWordChar reports whether s holds a letter or a digit: a piece
// without one is punctuation alone.
func hasWordChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
