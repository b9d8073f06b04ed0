package content

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/internal/safefile"
)

// Lab is one lab as data: its text, what it watches, the sandbox it needs
// and, in Checks of its steps, its declarative checks. lab.toml holds all
// of it but the markdown and the messages; verify.toml holds the author's
// proof (Verify).
type Lab struct {
	// ID is the lab's ID, its directory's name when installed.
	ID string `toml:"id"`
	// Version names this edition of the lab ("1.0.0"): progress is kept
	// per version, and an installed lab lives under its ID and version.
	// A lab.toml without one is version "0" (NoVersion).
	Version string `toml:"version"`
	// Title is the lab's title, in Korean.
	Title string `toml:"title"`
	// DefaultRoot is the lab root learners use unless --root, $LABMATE_ROOT
	// or their settings say otherwise; write it under the learner's home
	// ("~/nginx"). {{ROOT}} in every text becomes the root in use.
	DefaultRoot string `toml:"default_root"`
	// IntroFile is the introduction page (markdown).
	IntroFile string `toml:"intro"`
	// FinishFile is the optional closing page, shown once every step
	// passed: what was built and what to take home.
	FinishFile string `toml:"finish"`
	// ReferenceRun is the file of the lab's recorded reference run (a
	// trace, docs/TRACE.md), played by `labmate replay`.
	ReferenceRun string `toml:"reference_run"`
	// Answers is the directory of the reference solution's files, laid
	// out as a lab root (default "reference").
	Answers string `toml:"answers"`
	// Start is an optional directory of files a lab root starts with.
	Start string `toml:"start"`
	// Cluster is what labmate watches in the lab cluster: also the RBAC a
	// learner's cluster must grant (`labmate lab rbac`).
	Cluster Cluster `toml:"cluster"`
	// Sandbox is the fake nodes `labmate sandbox up --lab <id>` creates.
	Sandbox Sandbox `toml:"sandbox"`
	// Predicates are named CEL expressions every check's rules,
	// witnesses and values may use by name: name = "expression".
	Predicates map[string]string `toml:"predicates"`
	// Steps are decoded with their checks (decodeLab).
	Steps []Step `toml:"-"`

	Intro  string `toml:"-"` // markdown, with {{ROOT}} placeholders
	Finish string `toml:"-"` // the closing page's markdown ("" when none)
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
	// TOML is lab.toml as written, to place what a check's text holds
	// (a CEL expression) at its line.
	TOML []byte `toml:"-"`
	// Controls are the control characters in the text the lab shows a
	// learner, found when it is read (controlProblems).
	Controls []*Problem `toml:"-"`
	// PredicatesAt is where lab.toml defines each predicate, by its path:
	// "predicates.NAME" for the lab's, "steps.I.predicates.NAME" (I from
	// 0) for a step's.
	PredicatesAt map[string]Span `toml:"-"`

	msgs map[string]string
	// msgAt is where messages*.toml write each of msgs; verifyAt where
	// verify.toml sets each key (keyPositions).
	msgAt    map[string]MsgPlace
	verifyAt map[string]Span
	// log keeps what Msg found wrong, shared by copies of the Lab.
	log *msgLog
}

// Cluster is what of a cluster the lab's checks read: labmate watches
// exactly this (and needs only read access to it).
type Cluster struct {
	// Namespaces are the namespaces whose objects of namespaced
	// resources labmate watches.
	Namespaces []string `toml:"namespaces"`
	// Watch are the resources labmate watches, in kubectl's spelling
	// ("pods", "daemonsets.apps", "clusterpolicies.nvidia.com"):
	// namespaced ones in Namespaces, cluster-scoped ones cluster-wide or
	// by the names Names gives.
	Watch []string `toml:"watch"`
	// Nodes are the nodes watched by name (names of "nodes"); empty means
	// the sandbox's nodes.
	Nodes []string `toml:"nodes"`
	// EventReasons are the reasons of the events watched (field
	// selectors of "events"; default FailedScheduling).
	EventReasons []string `toml:"event_reasons"`
	// Names are, by resource, the only objects of it watched.
	Names map[string][]string `toml:"names"`
	// Fields are, by resource, field selectors: one informer each, what
	// any of them selects is watched.
	Fields map[string][]string `toml:"fields"`
	// Labels are, by resource, a label selector.
	Labels map[string]string `toml:"labels"`
}

// Sandbox is the topology `labmate sandbox up` creates for the lab.
type Sandbox struct {
	// Nodes are groups of fake nodes, each group of one shape.
	Nodes []SandboxNodes `toml:"nodes"`
}

// SandboxNodes are fake nodes that share one shape.
type SandboxNodes struct {
	// Names are the nodes' names.
	Names []string `toml:"names"`
	// Capacity is the nodes' capacity and allocatable ("cpu", "memory",
	// "pods", extended resources like "nvidia.com/gpu").
	Capacity map[string]string `toml:"capacity"`
	// Labels are the nodes' labels.
	Labels map[string]string `toml:"labels"`
	// Taints are the nodes' taints ({ key, value, effect }).
	Taints []Taint `toml:"taints"`
}

// Taint is a node taint.
type Taint struct {
	// Key is the taint's key.
	Key string `toml:"key"`
	// Value is the taint's value.
	Value string `toml:"value"`
	// Effect is NoSchedule, PreferNoSchedule or NoExecute.
	Effect string `toml:"effect"`
}

// Step is one step's text. Body and Solution are markdown with {{ROOT}}
// placeholders; Hints escalate from a nudge to nearly the answer. Checks
// are its declarative checks; a step without them is decided by the lab's
// Go code (labs/<id>).
type Step struct {
	// Number is the step's number, from 1, in order.
	Number int `toml:"number"`
	// ID names the step; progress is kept by it across versions of the
	// lab, so keep it when the step is renumbered or reworded.
	ID string `toml:"id"`
	// Title is the step's title, in Korean.
	Title string `toml:"title"`
	// BodyFile is the step's page (markdown).
	BodyFile string `toml:"body"`
	// SolutionFile is the step's solution page (markdown).
	SolutionFile string `toml:"solution"`
	// Hints are a ladder, in Korean: what to look at, then where and with
	// which command, then the command itself (never a report's value).
	Hints []string `toml:"hints"`
	// Predicates are named CEL expressions this step's checks may use by
	// name, besides the lab's (which they may use too).
	Predicates map[string]string `toml:"predicates"`
	// Cluster says the step reads live cluster objects. Declarative
	// checks say so themselves; a Go step declares it here.
	Cluster bool `toml:"cluster"`
	// Checks are decoded with their tables (decodeLab).
	Checks []Check `toml:"-"`
	// At is where lab.toml declares the step.
	At Span `toml:"-"`

	Body     string `toml:"-"`
	Solution string `toml:"-"`
}

// Verify is verify.toml: the reference solution of each step and the
// wrong answers it must refuse (`labmate lab verify`).
type Verify struct {
	// TimeoutSeconds bounds the wait for each case's verdict (default 60).
	TimeoutSeconds int `toml:"timeout_seconds"`
	// Reset is shell run against the sandbox before the proof starts
	// (after labmate's own reset of the lab's namespaces and nodes).
	Reset string `toml:"reset"`
	// Steps are the proofs of the lab's steps, matched by ID.
	Steps []VerifyStep `toml:"steps"`
}

// VerifyStep is one step's proof, matched to the step by ID.
type VerifyStep struct {
	// ID is the step's ID in lab.toml.
	ID string `toml:"id"`
	// Solve is the step's reference solution.
	Solve Action `toml:"solve"`
	// Wrong are the wrong answers the step must refuse, each with the
	// check that refuses it and the words of its message.
	Wrong []Wrong `toml:"wrong"`
	// Equivalent are near-misses `lab verify --mutants` makes that the
	// author accepts as right, each with why.
	Equivalent []Equivalent `toml:"equivalent"`
}

// Equivalent names one mutant by its exact change (as `lab verify
// --mutants` prints it) and says why it is no mistake.
// Under names many at once: "FILE PATH" is every field and live mutant
// of FILE at PATH or below it (a part of an object the step does not
// teach, e.g. a container's command).
type Equivalent struct {
	// Mutant is one near-miss, named as `lab verify --mutants` prints it.
	Mutant string `toml:"mutant"`
	// Under is "FILE PATH": every field and live near-miss of FILE at
	// PATH or below it.
	Under string `toml:"under"`
	// Reason says why the difference is no mistake (required).
	Reason string `toml:"reason"`
	// Explain is the key of the lab's message that says to a learner, in
	// Korean, why such a difference from the reference is no mistake: the
	// TUI's compare view shows it beside a learner's file that differs
	// there.
	Explain string `toml:"explain"`
}

// Action is what the verifier does to the lab root and the sandbox:
// files in the order listed here, then the shell script.
type Action struct {
	// Files are copied from the answers directory (mode 0644);
	// Executable ones get mode 0755.
	Files []string `toml:"files"`
	// Executable are copied like Files, with mode 0755.
	Executable []string `toml:"executable"`
	// Write writes files of the given content.
	Write []WriteFile `toml:"write"`
	// Edit writes answers' files with one text replaced by another.
	Edit []Edit `toml:"edit"`
	// Remove removes files of the lab root.
	Remove []string `toml:"remove"`
	// Run is a shell script run in the lab root with $ROOT, $ANSWERS and
	// $KUBECONFIG set and the sandbox's kubectl first on PATH.
	Run string `toml:"run"`
}

// WriteFile writes Content to Path (Mode "0755" etc., default 0644).
type WriteFile struct {
	// Path is the file, relative to the lab root; its parent directories
	// are made.
	Path string `toml:"path"`
	// Content is what the file holds.
	Content string `toml:"content"`
	// Mode is its mode ("0755"; default "0644").
	Mode string `toml:"mode"`
}

// Edit writes the answers' file at Path with Old replaced by New.
type Edit struct {
	// Path is the answers' file, written at the same path of the lab root.
	Path string `toml:"path"`
	// Old is the text replaced (it must be in the file).
	Old string `toml:"old"`
	// New is the text that replaces it.
	New string `toml:"new"`
	// Mode is the written file's mode ("0755"; default "0644").
	Mode string `toml:"mode"`
}

// Wrong is a near miss: a wrong answer and the verdict it must get.
type Wrong struct {
	// Case names the wrong answer in the proof's table.
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
	// Label names the mistake for the learner and the instructor (short
	// Korean, "따옴표 없는 플러그인 이름"): a learner whose failing check
	// shows this case's message is making it (Lab.Mistake).
	Label string `toml:"label"`
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
	// A FIFO or device where a lab file should be is refused, never
	// waited on.
	l, err := loadLab(safefile.DirFS(abs), abs)
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
	l := &Lab{FS: fsys, Where: where, msgs: map[string]string{}, msgAt: map[string]MsgPlace{},
		log: &msgLog{missing: map[string]bool{}, unfilled: map[string]map[string]bool{}}}
	if err := decodeLab(path.Join(where, "lab.toml"), raw, l); err != nil {
		return nil, err
	}
	l.place(stepSpans(raw))
	l.TOML = raw
	if err := checkVersion(path.Join(where, "lab.toml"), raw, l); err != nil {
		return nil, err
	}
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
	if l.Finish, err = read(l.FinishFile); err != nil {
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
			err = l.addMessages(path.Join(where, m), m, raw)
		}
		if err != nil {
			return nil, err
		}
	}
	l.resolveTexts()
	if raw, err := fs.ReadFile(fsys, "verify.toml"); err == nil {
		l.Verify = &Verify{}
		if err := decodeTOML(path.Join(where, "verify.toml"), raw, l.Verify, true); err != nil {
			return nil, err
		}
		l.verifyAt = keyPositions(raw)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	l.Controls = l.controlProblems()
	l.PredicatesAt = map[string]Span{}
	for k, at := range keyPositions(l.TOML) {
		if strings.HasPrefix(k, "predicates.") || strings.HasPrefix(k, "steps.") && strings.Contains(k, ".predicates.") {
			l.PredicatesAt[k] = at
		}
	}
	return l, nil
}

// decodeTOML decodes TOML; strict, it refuses keys the schema does not
// know, so an author's typo is an error with its position, not a
// silently ignored setting.
func decodeTOML(file string, raw []byte, into any, strictly bool) error {
	dec := toml.NewDecoder(bytes.NewReader(raw))
	if strictly {
		dec.DisallowUnknownFields()
	}
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

// decodeTree decodes TOML into a generic tree.
func decodeTree(raw []byte) (map[string]any, error) {
	var tree map[string]any
	err := toml.Unmarshal(raw, &tree)
	return tree, err
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

// NoVersion is the version of a lab whose lab.toml names none.
const NoVersion = "0"

// versionForm is what a version may look like: it names a directory
// (an installed lab's) and a state file, so no slash, no "..", no space.
var versionForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._+-]{0,63}$`)
})

// ValidVersion reports whether v is a well-formed lab version.
func ValidVersion(v string) bool {
	return versionForm().MatchString(v) && !strings.Contains(v, "..")
}

// checkVersion defaults a missing version to NoVersion and refuses one
// that could not name a directory, at its place in lab.toml.
func checkVersion(file string, raw []byte, l *Lab) error {
	if l.Version == "" {
		l.Version = NoVersion
		return nil
	}
	if ValidVersion(l.Version) {
		return nil
	}
	at := keyPositions(raw)["version"]
	return &Problem{File: file, Line: at.Line, Col: at.Col, Msg: Msg("content.bad_version", "version", l.Version)}
}
