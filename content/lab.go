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
	ID string `toml:"id"`
	// Version names this edition of the lab ("1.0.0"): progress is kept
	// per version, and an installed lab lives under its ID and version.
	// A lab.toml without one is version "0" (NoVersion).
	Version     string `toml:"version"`
	Title       string `toml:"title"`
	DefaultRoot string `toml:"default_root"`
	IntroFile   string `toml:"intro"`
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
	Start   string  `toml:"start"`
	Cluster Cluster `toml:"cluster"`
	Sandbox Sandbox `toml:"sandbox"`
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

	msgs map[string]string
	// msgAt is where messages*.toml write each of msgs; verifyAt where
	// verify.toml sets each key (keyPositions).
	msgAt    map[string]msgPlace
	verifyAt map[string]Span
	// log keeps what Msg found wrong, shared by copies of the Lab.
	log *msgLog
	// spans are where lab.toml declares each step and each of its
	// checks, and where each check sets its keys (the TOML parser's).
	spans labSpans
}

// Cluster is what of a cluster the lab's checks read: labmate watches
// exactly this (and needs only read access to it).
type Cluster struct {
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
	Cluster bool `toml:"cluster"`
	// Checks are decoded with their tables (decodeLab).
	Checks []Check `toml:"-"`

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
	Reset string       `toml:"reset"`
	Steps []VerifyStep `toml:"steps"`
}

// VerifyStep is one step's proof, matched to the step by ID.
type VerifyStep struct {
	ID    string  `toml:"id"`
	Solve Action  `toml:"solve"`
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
	Mutant string `toml:"mutant"`
	Under  string `toml:"under"`
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
	l := &Lab{FS: fsys, Where: where, msgs: map[string]string{}, msgAt: map[string]msgPlace{},
		log: &msgLog{missing: map[string]bool{}, unfilled: map[string]map[string]bool{}}}
	if err := decodeLab(path.Join(where, "lab.toml"), raw, l); err != nil {
		return nil, err
	}
	l.spans = stepSpans(raw)
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
	if raw, err := fs.ReadFile(fsys, "verify.toml"); err == nil {
		l.Verify = &Verify{}
		if err := decodeTOML(path.Join(where, "verify.toml"), raw, l.Verify, true); err != nil {
			return nil, err
		}
		l.verifyAt = keyPositions(raw)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
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
