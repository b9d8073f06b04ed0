package content

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Lab is one lab as data: its text, what it watches, the sandbox it needs
// and, in Checks of its steps, its declarative checks. lab.toml holds all
// of it but the markdown and the messages; verify.toml holds the author's
// proof (Verify).
type Lab struct {
	ID          string `toml:"id"`
	Title       string `toml:"title"`
	DefaultRoot string `toml:"default_root"`
	IntroFile   string `toml:"intro"`
	// ReferenceRun is the file of the lab's recorded reference run (a
	// trace, docs/TRACE.md), played by `labmate replay`.
	ReferenceRun string `toml:"reference_run"`
	// Answers is the directory of the reference solution's files, laid
	// out as a lab root (default "reference").
	Answers string `toml:"answers"`
	// Start is an optional directory of files a lab root starts with.
	Start   string  `toml:"start"`
	Cluster Cluster `toml:"cluster"`
	Sandbox Sandbox `toml:"sandbox"`
	Steps   []Step  `toml:"steps"`

	Intro string `toml:"-"` // markdown, with {{ROOT}} placeholders
	// FS is the lab's directory; Dir is where it is on disk for a lab
	// read with LoadDir ("" when embedded). Embedded is true for the
	// labs built into labmate.
	FS       fs.FS  `toml:"-"`
	Dir      string `toml:"-"`
	Embedded bool   `toml:"-"`
	// Verify is verify.toml, nil when the lab has none.
	Verify *Verify `toml:"-"`
	// Where names the lab's directory in messages (content/labs/<id> or
	// the directory given to LoadDir).
	Where string `toml:"-"`

	msgs    map[string]string
	missing *keySet // shared by copies of the Lab
	// spans are where lab.toml declares each step and each of its
	// checks, from the TOML parser (index: step, then 1 + check).
	spans [][]Span
}

// keySet is a set of message keys, safe for concurrent use.
type keySet struct {
	mu sync.Mutex
	m  map[string]bool
}

// Cluster is what of a cluster the lab's checks read: labmate watches
// exactly this (and needs only read access to it).
type Cluster struct {
	Namespaces []string `toml:"namespaces"`
	// Nodes are watched by name; empty means the sandbox's nodes.
	Nodes []string `toml:"nodes"`
	// EventReasons are the event reasons watched in the namespaces
	// (default FailedScheduling).
	EventReasons []string `toml:"event_reasons"`
}

// Sandbox is the topology `labmate sandbox up` creates for the lab.
type Sandbox struct {
	Nodes []SandboxNodes `toml:"nodes"`
}

// SandboxNodes are fake nodes that share one shape.
type SandboxNodes struct {
	Names []string `toml:"names"`
	// Capacity is the nodes' capacity and allocatable ("cpu", "memory",
	// "pods", extended resources like "nvidia.com/gpu").
	Capacity map[string]string `toml:"capacity"`
	Labels   map[string]string `toml:"labels"`
	Taints   []Taint           `toml:"taints"`
}

// Taint is a node taint.
type Taint struct {
	Key    string `toml:"key"`
	Value  string `toml:"value"`
	Effect string `toml:"effect"`
}

// Step is one step's text. Body and Solution are markdown with {{ROOT}}
// placeholders; Hints escalate from a nudge to nearly the answer. Checks
// are its declarative checks; a step without them is decided by the lab's
// Go code (labs/<id>).
type Step struct {
	Number       int      `toml:"number"`
	ID           string   `toml:"id"`
	Title        string   `toml:"title"`
	BodyFile     string   `toml:"body"`
	SolutionFile string   `toml:"solution"`
	Hints        []string `toml:"hints"`
	// Cluster says the step reads live cluster objects. Declarative
	// checks say so themselves; a Go step declares it here.
	Cluster bool    `toml:"cluster"`
	Checks  []Check `toml:"checks"`

	Body     string `toml:"-"`
	Solution string `toml:"-"`
}

// Check is one declarative check. Which fields apply depends on Type; the
// reference (generated from labkit) is in docs/AUTHORING.md. Text fields
// name message keys of the lab's messages*.toml.
type Check struct {
	ID    string   `toml:"id"`
	Type  string   `toml:"type"`
	Needs []string `toml:"needs"`

	Path       string `toml:"path"`
	Format     string `toml:"format"`
	Key        string `toml:"key"`
	Equals     any    `toml:"equals"`
	Matches    string `toml:"matches"`
	Executable bool   `toml:"executable"`

	APIVersion string `toml:"api_version"`
	Kind       string `toml:"kind"`
	Namespace  string `toml:"namespace"`
	Name       string `toml:"name"`
	File       string `toml:"file"`
	Rules      []Rule `toml:"rules"`

	Keys     []string          `toml:"keys"`
	Values   map[string]string `toml:"values"`
	Why      map[string]string `toml:"why"`
	NoSpaces bool              `toml:"no_spaces"`
	Remember bool              `toml:"remember"`

	Held   string `toml:"held"`
	Event  string `toml:"event"`
	Remain bool   `toml:"remain"`

	Pass    string `toml:"pass"`
	Fail    string `toml:"fail"`
	Expect  string `toml:"expect"`
	Hint    string `toml:"hint"`
	Missing string `toml:"missing"`
}

// Rule is one condition of a manifest or live-object check: a CEL
// expression over `object` (and `file`, `cluster`), the field it is about,
// and the lab's text for it.
type Rule struct {
	Expr   string `toml:"expr"`
	Field  string `toml:"field"`
	Show   string `toml:"show"`
	Expect string `toml:"expect"`
	Fail   string `toml:"fail"`
}

// Verify is verify.toml: the reference solution of each step and the
// wrong answers it must refuse (`labmate lab verify`).
type Verify struct {
	// TimeoutSeconds bounds the wait for each case's verdict (default 60).
	TimeoutSeconds int `toml:"timeout_seconds"`
	// Reset is shell run against the sandbox before the proof starts
	// (after labmate's own reset of the lab's namespaces and nodes).
	Reset string       `toml:"reset"`
	Steps []VerifyStep `toml:"steps"`
}

// VerifyStep is one step's proof, matched to the step by ID.
type VerifyStep struct {
	ID    string  `toml:"id"`
	Solve Action  `toml:"solve"`
	Wrong []Wrong `toml:"wrong"`
}

// Action is what the verifier does to the lab root and the sandbox:
// files in the order listed here, then the shell script.
type Action struct {
	// Files are copied from the answers directory (mode 0644);
	// Executable ones get mode 0755.
	Files      []string    `toml:"files"`
	Executable []string    `toml:"executable"`
	Write      []WriteFile `toml:"write"`
	Edit       []Edit      `toml:"edit"`
	Remove     []string    `toml:"remove"`
	// Run is a shell script run in the lab root with $ROOT, $ANSWERS and
	// $KUBECONFIG set and the sandbox's kubectl first on PATH.
	Run string `toml:"run"`
}

// WriteFile writes Content to Path (Mode "0755" etc., default 0644).
type WriteFile struct {
	Path    string `toml:"path"`
	Content string `toml:"content"`
	Mode    string `toml:"mode"`
}

// Edit writes the answers' file at Path with Old replaced by New.
type Edit struct {
	Path string `toml:"path"`
	Old  string `toml:"old"`
	New  string `toml:"new"`
	Mode string `toml:"mode"`
}

// Wrong is a near miss: a wrong answer and the verdict it must get.
type Wrong struct {
	Case string `toml:"case"`
	Action
	// Check is the check (its ID in the step) that must refuse it; empty
	// means any check of the step.
	Check string `toml:"check"`
	// Status is the status that check must show (default failed).
	Status string `toml:"status"`
	// Message lists substrings the check's message must contain.
	Message []string `toml:"message"`
	// Undo is shell run after the case (to make room for the next).
	Undo string `toml:"undo"`
	// Breaks lists earlier steps this wrong answer turns red on purpose.
	Breaks []int `toml:"breaks"`
	// After runs the case after the step's solution instead of before
	// it, then solves the step again.
	After bool `toml:"after"`
}

// Problem is an authoring error in a lab's files: where, and what is
// wrong, in Korean. Line and Col are 1-based, 0 when unknown.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

func (p *Problem) Error() string {
	at := p.File
	if p.Line > 0 {
		at += fmt.Sprintf(":%d", p.Line)
		if p.Col > 0 {
			at += fmt.Sprintf(":%d", p.Col)
		}
	}
	if at == "" {
		return p.Msg
	}
	return at + ": " + p.Msg
}

// LoadDir reads a lab from a directory on disk, laid out like an
// embedded one.
func LoadDir(dir string) (*Lab, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, &Problem{File: dir, Msg: Msg("content.not_lab_dir", "dir", dir)}
	}
	l, err := loadLab(os.DirFS(abs), abs)
	if err != nil {
		return nil, err
	}
	l.Dir = abs
	return l, nil
}

// loadLab reads a lab from its directory; where names it in messages.
func loadLab(fsys fs.FS, where string) (*Lab, error) {
	raw, err := fs.ReadFile(fsys, "lab.toml")
	if err != nil {
		return nil, &Problem{File: path.Join(where, "lab.toml"), Msg: Msg("content.no_lab_toml")}
	}
	l := &Lab{FS: fsys, Where: where, msgs: map[string]string{}, missing: &keySet{m: map[string]bool{}}}
	if err := decodeStrict(path.Join(where, "lab.toml"), raw, l); err != nil {
		return nil, err
	}
	l.spans = stepSpans(raw)
	if l.Answers == "" {
		l.Answers = "reference"
	}
	read := func(name string) (string, error) {
		if name == "" {
			return "", nil
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return "", &Problem{File: path.Join(where, "lab.toml"), Msg: Msg("content.missing_file", "file", name)}
		}
		return string(b), nil
	}
	if l.Intro, err = read(l.IntroFile); err != nil {
		return nil, err
	}
	for i := range l.Steps {
		s := &l.Steps[i]
		if s.Body, err = read(s.BodyFile); err != nil {
			return nil, err
		}
		if s.Solution, err = read(s.SolutionFile); err != nil {
			return nil, err
		}
	}
	ms, _ := fs.Glob(fsys, "messages*.toml")
	slices.Sort(ms)
	for _, m := range ms {
		raw, err := fs.ReadFile(fsys, m)
		if err == nil {
			err = flattenMessages(path.Join(where, m), raw, l.msgs)
		}
		if err != nil {
			return nil, err
		}
	}
	if raw, err := fs.ReadFile(fsys, "verify.toml"); err == nil {
		l.Verify = &Verify{}
		if err := decodeStrict(path.Join(where, "verify.toml"), raw, l.Verify); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return l, nil
}

// decodeStrict decodes TOML refusing keys the schema does not know, so an
// author's typo is an error with its position, not a silently ignored
// setting.
func decodeStrict(file string, raw []byte, into any) error {
	dec := toml.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(into)
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		var keys []string
		for _, e := range strict.Errors {
			keys = append(keys, strings.Join(e.Key(), "."))
		}
		line, col := strict.Errors[0].Position()
		return &Problem{File: file, Line: line, Col: col, Msg: Msg("content.unknown_keys", "keys", strings.Join(keys, ", "))}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return &Problem{File: file, Line: line, Col: col, Msg: Msg("content.bad_toml", "err", de.Error())}
	}
	return &Problem{File: file, Msg: Msg("content.bad_toml", "err", err)}
}

// Span is where lab.toml declares a step or a check: the lines from its
// [[...]] header to the last line before the next header that is not one
// of its own sub-tables, and the position of its id key (of the header
// when it has none). Lines and columns are 1-based; a zero Span is
// unknown (a check written as an inline table, say).
type Span struct {
	Line, Col   int
	First, Last int
}

// StepSpan is where lab.toml declares Steps[i].
func (l *Lab) StepSpan(i int) Span {
	if l == nil || i < 0 || i >= len(l.spans) {
		return Span{}
	}
	return l.spans[i][0]
}

// CheckSpan is where lab.toml declares Steps[i].Checks[j].
func (l *Lab) CheckSpan(i, j int) Span {
	if l == nil || i < 0 || i >= len(l.spans) || j < 0 || j+1 >= len(l.spans[i]) {
		return Span{}
	}
	return l.spans[i][j+1]
}

// stepSpans finds the [[steps]] and [[steps.checks]] tables of a valid
// lab.toml with the TOML parser, so a problem in a check is placed at
// that check even when another step has a check of the same ID.
func stepSpans(raw []byte) (spans [][]Span) {
	defer func() {
		// Positions only make messages better; never let the parser's
		// unstable API take a lab down.
		if recover() != nil {
			spans = nil
		}
	}()
	starts := []int{0}
	for i, c := range raw {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	pos := func(off uint32) (int, int) {
		line := sort.Search(len(starts), func(i int) bool { return starts[i] > int(off) })
		return line, int(off) - starts[line-1] + 1
	}
	var open []*Span // the step and the check whose tables are being read
	closeTo := func(n, line int) {
		for len(open) > n {
			open[len(open)-1].Last = line
			open = open[:len(open)-1]
		}
	}
	var table []string
	var p unstable.Parser
	p.Reset(raw)
	for p.NextExpression() {
		e := p.Expression()
		var key []string
		line, col := 0, 0
		for it := e.Key(); it.Next(); {
			if key == nil {
				line, col = pos(it.Node().Raw.Offset)
			}
			key = append(key, string(it.Node().Data))
		}
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = key
			switch {
			case e.Kind == unstable.ArrayTable && slices.Equal(key, []string{"steps"}):
				closeTo(0, line-1)
				spans = append(spans, []Span{{Line: line, Col: col, First: line}})
				open = append(open, &spans[len(spans)-1][0])
			case e.Kind == unstable.ArrayTable && slices.Equal(key, []string{"steps", "checks"}) && len(spans) > 0:
				closeTo(1, line-1)
				last := len(spans) - 1
				spans[last] = append(spans[last], Span{Line: line, Col: col, First: line})
				// Appending may move the step's spans: point at them anew.
				open = []*Span{&spans[last][0], &spans[last][len(spans[last])-1]}
			case len(key) > 2 && slices.Equal(key[:2], []string{"steps", "checks"}):
				// rules, values, why: still the check's
			case len(key) > 1 && key[0] == "steps":
				closeTo(1, line-1)
			default:
				closeTo(0, line-1)
			}
		case unstable.KeyValue:
			inStep := len(open) == 1 && slices.Equal(table, []string{"steps"})
			inCheck := len(open) == 2 && slices.Equal(table, []string{"steps", "checks"})
			if len(key) == 1 && key[0] == "id" && (inStep || inCheck) {
				open[len(open)-1].Line, open[len(open)-1].Col = line, col
			}
		}
	}
	closeTo(0, len(starts))
	return spans
}

// decodeTree decodes TOML into a generic tree.
func decodeTree(raw []byte) (map[string]any, error) {
	var tree map[string]any
	err := toml.Unmarshal(raw, &tree)
	return tree, err
}

// Msg returns the lab's message for key (its messages*.toml first, then
// the shared text) with {name} placeholders filled. A key neither has is
// returned as is, and remembered for MissingKeys.
func (l *Lab) Msg(key string, kv ...any) string {
	if l == nil {
		return Msg(key, kv...)
	}
	if t, ok := l.msgs[key]; ok {
		return fill(t, kv)
	}
	if !HasMsg(key) && l.missing != nil {
		l.missing.mu.Lock()
		l.missing.m[key] = true
		l.missing.mu.Unlock()
	}
	return Msg(key, kv...)
}

// HasMsg reports whether the lab or the shared text has key. A nil Lab
// has only the shared text, as for Msg.
func (l *Lab) HasMsg(key string) bool {
	if l != nil {
		if _, ok := l.msgs[key]; ok {
			return true
		}
	}
	return HasMsg(key)
}

// OwnKeys returns the message keys the lab itself defines, sorted.
func (l *Lab) OwnKeys() []string {
	keys := make([]string, 0, len(l.msgs))
	for k := range l.msgs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// MissingKeys returns the keys Msg was asked for that neither the lab nor
// the shared text defines, sorted (`labmate lab verify` fails on them).
func (l *Lab) MissingKeys() []string {
	if l.missing == nil {
		return nil
	}
	l.missing.mu.Lock()
	defer l.missing.mu.Unlock()
	keys := make([]string, 0, len(l.missing.m))
	for k := range l.missing.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ReadFile reads a file of the lab's directory.
func (l *Lab) ReadFile(name string) ([]byte, error) { return fs.ReadFile(l.FS, name) }

// Step returns step n, or nil.
func (l *Lab) Step(n int) *Step {
	for i := range l.Steps {
		if l.Steps[i].Number == n {
			return &l.Steps[i]
		}
	}
	return nil
}

// NodeNames are the sandbox's node names, in the order lab.toml lists them.
func (l *Lab) NodeNames() []string {
	var out []string
	for _, g := range l.Sandbox.Nodes {
		out = append(out, g.Names...)
	}
	return out
}

// WatchedNodes are the nodes labmate watches for the lab: Cluster.Nodes,
// or the sandbox's nodes.
func (l *Lab) WatchedNodes() []string {
	if len(l.Cluster.Nodes) > 0 {
		return slices.Clone(l.Cluster.Nodes)
	}
	return l.NodeNames()
}

// ClusterSteps are the numbers of the steps that read the cluster, in
// order.
func (l *Lab) ClusterSteps() []int {
	var out []int
	for _, s := range l.Steps {
		if s.ReadsCluster() {
			out = append(out, s.Number)
		}
	}
	return out
}

// ReadsCluster says whether the step reads live cluster objects: declared
// for a Go step, implied by its declarative checks.
func (s Step) ReadsCluster() bool {
	if s.Cluster {
		return true
	}
	for _, c := range s.Checks {
		if c.ReadsCluster() {
			return true
		}
	}
	return false
}

// ReadsCluster says whether the check reads live cluster objects.
func (c Check) ReadsCluster() bool {
	switch c.Type {
	case "object", "witness":
		return true
	case "report":
		return len(c.Values) > 0
	}
	return false
}

// StepRange words a list of step numbers for a message: "5~8", "2, 4".
func StepRange(ns []int) string {
	if len(ns) == 0 {
		return ""
	}
	contiguous := true
	for i := 1; i < len(ns); i++ {
		if ns[i] != ns[i-1]+1 {
			contiguous = false
		}
	}
	if contiguous && len(ns) > 2 {
		return fmt.Sprintf("%d~%d", ns[0], ns[len(ns)-1])
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}
