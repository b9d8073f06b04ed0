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
//   - A word longer than a whole line (a TOML key, a path; a command or a
//     line of code whose blanks code.go marked) starts a line of its own,
//     or follows a list marker, and is broken where a reader still sees
//     one token going on, taking the last place that fits of the best kind
//     there is:
//     1. a blank of the code (a marked one), after a "/" (not inside
//        "//") or after a ",", outside quotes;
//     2. after a "." that separates TOML key or field path segments (a
//        letter, "_", "[" or a quote follows: never inside a number such
//        as 1.16.2), or after a ":" or "=" (a key and its value), outside
//        quotes;
//     3. a blank inside quotes;
//     4. one of the places of 1 and 2 inside quotes;
//     5. after a hyphen or "_", or between a lower-case and an upper-case
//        letter (camelCase);
//     6. only when none of these fits: at the last character that does.
//     A quoted string is broken only when no place outside it fits, so
//     "io.containerd.runc.v2" stays whole wherever it can, and no piece of
//     a broken word is punctuation alone (no lone "." or "]" on a line).
//     On a page, the rest of a broken word hangs two cells further in, so
//     it reads as the same line of code going on, not as a new one.
//   - Every line fits its width with a spare cell for each
//     East-Asian-ambiguous character (Cells).
//
// A break is never marked with a sign: it would be read as part of the
// code.

// piece is one line of broken text; hung says it goes on with a word
// broken on the line before (it starts hang cells further in).
type piece struct {
	text string
	hung bool
}

// breakLines breaks s (plain or styled with SGR) into lines of at most
// limit cells by the rule above, no line hung; the lines of a string with
// newlines break apart. It returns at least one line.
func breakLines(s string, limit int) []string {
	var out []string
	for _, part := range strings.Split(s, "\n") {
		for _, p := range breakLine(part, max(limit, 1), 0) {
			out = append(out, p.text)
		}
	}
	return out
}

// span is a byte range of a line's visible text.
type span struct{ from, to int }

// breakLine breaks one line of text; the rest of a broken word goes on
// hang cells further in (so with hang cells less room).
func breakLine(s string, limit, hang int) []piece {
	if Cells(s) <= limit {
		return []piece{{text: s}}
	}
	v := ansi.Strip(s)
	type line struct {
		span
		hung bool
	}
	room := func(hung bool) int {
		if hung {
			return max(limit-hang, 1)
		}
		return limit
	}
	var out []line
	// The line being filled, and its cells. The first one starts at 0,
	// keeping the text's leading blanks.
	cur, cells := line{}, 0
	for _, w := range wordsOf(v) {
		wc := Cells(v[w.from:w.to])
		gap := w.from - cur.to // blanks: one byte, one cell each
		if cells+gap+wc <= room(cur.hung) {
			cur.to, cells = w.to, cells+gap+wc
			continue
		}
		empty := cur.to == cur.from
		if !empty && wc <= limit {
			out = append(out, cur)
			cur, cells = line{span: w}, wc
			continue
		}
		// A word longer than the room left: it follows a list marker (or
		// starts the line), else it starts a line of its own.
		if !empty && !isMarker(v[cur.from:cur.to]) {
			out = append(out, cur)
			cur = line{span: span{w.from, w.from}}
		}
		pieces := splitWord(v, cur.from, w, room(cur.hung), room(true))
		out = append(out, line{pieces[0], cur.hung})
		for _, p := range pieces[1:] {
			out = append(out, line{p, true})
		}
		cur, out = out[len(out)-1], out[:len(out)-1]
		cells = Cells(v[cur.from:cur.to])
	}
	out = append(out, cur)
	lines := make([]piece, len(out))
	plain := !strings.ContainsRune(s, '\x1b')
	for i, l := range out {
		lines[i].hung = l.hung
		if plain {
			lines[i].text = v[l.from:l.to]
		} else {
			lines[i].text = ansi.Cut(s, ansi.StringWidth(v[:l.from]), ansi.StringWidth(v[:l.to]))
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

// splitWord breaks word w of v into pieces: the first runs from start
// (the line it joins; start == w.from when it is a line of its own) and
// fits first cells, every later one fits rest.
func splitWord(v string, start int, w span, first, rest int) []span {
	breaks := breaksIn(v[w.from:w.to])
	if lead := v[start:w.from]; lead != "" && strings.TrimLeft(lead, " ") == "" &&
		Cells(lead)+Cells(firstChar(v[w.from:w.to])) > first {
		start = w.from // leading blanks that leave no room for a character go
	}
	var out []span
	from, limit := start, first
	for Cells(v[from:w.to]) > limit {
		at := bestBreak(v, w, from, breaks, limit)
		if at >= w.to {
			break // one character wider than the line: it overflows, cut later
		}
		out = append(out, span{from, at})
		from, limit = at, rest
	}
	return append(out, span{from, w.to})
}

// A place a word may break, by the tier of the rule (1 is best).
type wordBreak struct {
	at   int // byte offset in the word: the break comes before it
	tier int
}

// breaksIn lists where word may break, tiers 1 to 5 of the rule.
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
		case r == '/' && next != '/', r == ',':
			tier = pick(quoted, 1, 4)
		case r == '.' && (unicode.IsLetter(next) || strings.ContainsRune(`_["'`, next)),
			(r == ':' || r == '=') && next != r && next != '/':
			tier = pick(quoted, 2, 4)
		case r == '-' || r == '_':
			if next != r {
				tier = 5
			}
		case unicode.IsLower(r) && unicode.IsUpper(next):
			tier = 5
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
	best, bestTier := -1, 6
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
	// Tier 6: the most whole characters that fit, at least one.
	rest := v[from:w.to]
	fit := ansi.Truncate(rest, limit, "")
	for fit != "" && Cells(fit) > limit {
		fit = ansi.Truncate(rest, ansi.StringWidth(fit)-1, "")
	}
	if fit != "" && from+len(fit) > w.from {
		return from + len(fit)
	}
	// Not even one character of the word fits (after what leads the line:
	// its blanks, a list marker): one goes on the line all the same, and
	// the line is cut later.
	at := max(from, w.from)
	return at + len(firstChar(v[at:w.to]))
}

// firstChar is s's first character as the screen draws it (with what
// combines with it).
func firstChar(s string) string {
	for n := 1; n <= 4; n++ {
		if c := ansi.Truncate(s, n, ""); c != "" {
			return c
		}
	}
	_, size := utf8.DecodeRuneInString(s)
	return s[:size]
}

// hasWordChar reports whether s holds a letter or a digit: a piece
// without one is punctuation alone.
func hasWordChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
