package verify

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
)

// The proof for CI: `lab verify --json` and `--junit FILE`. Both are the
// same cases, made once (Cases): a row of the table each (the lab's
// static rows, each step's start, wrong answers, reference and its
// near-miss summary), and one case per near-miss the mutation proof made,
// in place of the table's rows that single out a survivor or one not
// tried. They keep the lab's and the answers' raw strings, as `check
// --json` does: encoding/json writes a control as \u001b, encoding/xml
// writes a character XML cannot hold as U+FFFD.

// Case statuses.
const (
	CasePassed   = "passed"
	CaseFailed   = "failed"
	CaseSkipped  = "skipped"  // not verified (--no-cluster), not tried, another shard's
	CaseUnproven = "unproven" // the environment kept it from being decided
)

// Case is one case of a proof as CI reads it.
type Case struct {
	Step     int    `json:"step"` // 0 for the lab as a whole
	Name     string `json:"case"`
	Status   string `json:"status"`
	Expected string `json:"expected"`
	Seen     string `json:"seen"`
	// Mutant is the near-miss's exact change (verify.toml's
	// [[steps.equivalent]] mutant), "" for a row of the table.
	Mutant  string  `json:"mutant,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Cases are the proof's cases in the table's order, each step's
// near-misses after its rows.
func (r Result) Cases() []Case {
	var out []Case
	byStep := map[int][]*Mutant{}
	for _, m := range r.Mutants {
		byStep[m.Step] = append(byStep[m.Step], m)
	}
	done := map[int]bool{}
	flush := func(step int) {
		if done[step] {
			return
		}
		done[step] = true
		for _, m := range byStep[step] {
			out = append(out, mutantCase(m))
		}
	}
	for i, row := range r.Rows {
		if !row.nearMiss {
			out = append(out, rowCase(row))
		}
		if i+1 == len(r.Rows) || r.Rows[i+1].Step != row.Step {
			flush(row.Step)
		}
	}
	for _, m := range r.Mutants { // a step with no row of its own
		flush(m.Step)
	}
	return out
}

func rowCase(row Row) Case {
	c := Case{Step: row.Step, Name: row.Case, Expected: row.Expected, Seen: row.Seen, Seconds: row.Took.Seconds(), Status: CasePassed}
	switch {
	case row.Unproven:
		c.Status = CaseUnproven
	case row.Skipped:
		c.Status = CaseSkipped
	case !row.OK:
		c.Status = CaseFailed
	}
	return c
}

// mutantCase is one near-miss: a change that must not pass (a restyle:
// one that must), with what became of it.
func mutantCase(m *Mutant) Case {
	c := Case{Step: m.Step, Name: msg("verify.case.mutant", "desc", m.Desc), Mutant: m.Desc,
		Expected: msg("verify.expect.not_passed"), Status: CasePassed}
	if m.Op == opRestyle {
		c.Expected = msg("verify.expect.passed")
	}
	seen := msg("verify.mutant." + m.Outcome)
	switch m.Outcome {
	case outKilled:
		if m.By != "" {
			seen += " (" + m.By + ")"
		}
	case outEquivalent:
		seen += ": " + m.Reason
	case outSurvived:
		c.Status = CaseFailed
		seen = msg("verify.seen.wrong_passed")
	case outFalseFail:
		c.Status = CaseFailed
		seen = msg("verify.seen.false_fail", "desc", m.Desc, "check", m.By)
	case outNotTried, outElsewhere:
		c.Status = CaseSkipped
		if m.Note != "" {
			seen += ": " + m.Note
		}
	case outEnv:
		c.Status = CaseUnproven
		if m.Note != "" {
			seen += ": " + m.Note
		}
	}
	c.Seen = seen
	return c
}

// jsonProof is `lab verify --json`'s document.
type jsonProof struct {
	Lab   string `json:"lab"`
	OK    bool   `json:"ok"`
	Cases []Case `json:"cases"`
}

// WriteJSON writes the proof as one JSON document: the lab, whether
// every case held (Result.OK) and the cases.
func (r Result) WriteJSON(w io.Writer) error {
	cases := r.Cases()
	if cases == nil {
		cases = []Case{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonProof{Lab: r.Lab, OK: r.OK(), Cases: cases})
}

// JUnit XML as Jenkins' JUnit plugin, GitLab's unit test reports and
// most CI read it (the de facto schema of Ant's JUnit task and
// Surefire): <testsuites> of <testsuite>, one per step (the lab's own
// rows are the suite "전체"), of <testcase> with a <failure>, <error> (a
// case the environment kept from being decided) or <skipped> child.
// No JUnit library is served to this project, so it is encoding/xml
// with these few types.

// JUnitSuites is the document's root.
type JUnitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	JUnitCounts
	Suites []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one step's cases.
type JUnitSuite struct {
	JUnitCounts
	Cases []JUnitCase `xml:"testcase"`
}

// JUnitCounts are a suite's (or all suites') name, counts and seconds.
type JUnitCounts struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

// JUnitCase is one case.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure"`
	Error     *JUnitProblem `xml:"error"`
	Skipped   *JUnitProblem `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitProblem is a failure, error or skip: its message, and the
// expected and seen in its text.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit is the proof as a JUnit XML document.
func (r Result) JUnit() JUnitSuites {
	doc := JUnitSuites{JUnitCounts: JUnitCounts{Name: r.Lab}}
	var total float64
	index := map[int]int{}
	took := map[int]float64{}
	for _, c := range r.Cases() {
		i, ok := index[c.Step]
		if !ok {
			name := msg("verify.col.lab")
			if c.Step > 0 {
				name = msg("verify.junit.step", "n", c.Step)
			}
			doc.Suites = append(doc.Suites, JUnitSuite{JUnitCounts: JUnitCounts{Name: r.Lab + " " + name}})
			i = len(doc.Suites) - 1
			index[c.Step] = i
		}
		s := &doc.Suites[i]
		jc := JUnitCase{Name: c.Name, Classname: r.Lab + "." + strconv.Itoa(c.Step), Time: seconds(c.Seconds)}
		text := msg("verify.col.expected") + ": " + c.Expected + "\n" + msg("verify.col.seen") + ": " + c.Seen
		switch c.Status {
		case CaseFailed:
			jc.Failure = &JUnitProblem{Message: c.Seen, Type: CaseFailed, Text: text}
			s.Failures++
		case CaseUnproven:
			jc.Error = &JUnitProblem{Message: c.Seen, Type: CaseUnproven, Text: text}
			s.Errors++
		case CaseSkipped:
			jc.Skipped = &JUnitProblem{Message: c.Seen}
			s.Skipped++
		default:
			jc.SystemOut = text
		}
		s.Cases = append(s.Cases, jc)
		s.Tests++
		took[c.Step] += c.Seconds
		s.Time = seconds(took[c.Step])
		total += c.Seconds
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	doc.Time = seconds(total)
	return doc
}

// WriteJUnit writes the proof as a JUnit XML document.
func (r Result) WriteJUnit(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r.JUnit()); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }
