package checks

// Glyph is the status's one-cell mark: the one every medium shows beside
// the status word (the TUI's step strip, checks and alerts, the
// instructor's board, the class report), so a learner and an instructor
// read the same mark for the same state. The word always goes with it;
// colour is extra. None of the marks is East-Asian-ambiguous, so each
// takes one cell whatever the terminal's CJK width setting (a test checks
// this with go-runewidth both ways). A status it does not know is marked
// as unknown.
func (s Status) Glyph() string {
	switch s {
	case Passed:
		return "✓"
	case Failed:
		return "✗"
	case Waiting:
		return "⋯"
	case Error:
		return "!"
	default:
		return "?"
	}
}
