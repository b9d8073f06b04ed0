// Package clitest is the command line's test seam, as kubectl's
// cmd/testing is: NewTestFactory is the factory of a test (the default
// one, cli/factory, with what reaches outside swapped: fake connections,
// a prompter that answers as told, the learner's state in a temporary
// directory), and Run runs a command package's command on it as the
// labmate binary runs its tree (the shared flags, Korean help and
// errors, the exit code), its streams captured.
package clitest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/factory"
	"github.com/labhub/labmate/internal/syncio"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labroot"
)

// TestFactory is a factory for one command line of a test.
type TestFactory struct {
	t testing.TB
	// Stdin is what the command reads (empty: closed at once).
	Stdin string
	// Prompter answers the command's questions (Picks: none, as on no
	// terminal).
	Prompter *Prompter
	// Out and ErrOut are what the command being run writes, readable
	// while it runs (a --watch), made anew for each run.
	Out, ErrOut *Buffer

	deps   factory.Deps
	open   func(kube.Options) (kube.Conn, error)
	opened []kube.Options
	mu     sync.Mutex
	labDir string
}

// NewTestFactory is a factory whose connections are the test's (none
// until WithConn or WithKubeconfigs: no kubeconfig anywhere), whose
// state is kept in a temporary directory and whose prompter asks
// nothing (as on no terminal). Main keeps the rest of the machine out.
func NewTestFactory(t testing.TB) *TestFactory {
	t.Helper()
	tf := &TestFactory{t: t, Prompter: &Prompter{}}
	state := t.TempDir()
	tf.open = func(kube.Options) (kube.Conn, error) { return nil, &kube.LoadError{Kind: kube.Missing} }
	tf.deps = factory.Deps{
		Open: func(o kube.Options) (kube.Conn, error) {
			tf.mu.Lock()
			tf.opened = append(tf.opened, o)
			tf.mu.Unlock()
			return tf.open(o)
		},
		Prompter:  tf.Prompter,
		StateHome: func() (string, error) { return state, nil },
	}
	return tf
}

// WithConn makes conn every connection the command opens (the lab
// cluster, the instructor's, a learner's class file).
func (tf *TestFactory) WithConn(conn kube.Conn) *TestFactory {
	tf.open = func(kube.Options) (kube.Conn, error) { return conn, nil }
	return tf
}

// WithKubeconfigs opens connections with the real loader (kube.Open):
// for what a kubeconfig file itself decides.
func (tf *TestFactory) WithKubeconfigs() *TestFactory {
	tf.open = kube.Open
	return tf
}

// WithLabDir makes the lab in dir the one the command works on, in place
// of what the flags name.
func (tf *TestFactory) WithLabDir(dir string) *TestFactory {
	tf.labDir = dir
	return tf
}

// Stdout is the stdout of the command being run (or the last one); nil
// before the first.
func (tf *TestFactory) Stdout() *Buffer {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return tf.Out
}

// Output is what the command being run (or the last one) wrote so far.
func (tf *TestFactory) Output() (stdout, stderr string) {
	tf.mu.Lock()
	out, errOut := tf.Out, tf.ErrOut
	tf.mu.Unlock()
	if out == nil {
		return "", ""
	}
	return out.String(), errOut.String()
}

// Opened are the kubeconfig options of every connection the command
// asked for, in order.
func (tf *TestFactory) Opened() []kube.Options {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return append([]kube.Options(nil), tf.opened...)
}

// StateDir is where the command keeps the learner's state when
// --state-dir names none.
func (tf *TestFactory) StateDir() string {
	d, _ := tf.deps.StateHome()
	return d
}

// Run builds a command with newCmd on the test factory, puts it in a
// tree as cmd/labmate does (under the root `labmate`, the shared flags
// bound on the root) and runs it with args (cli.Execute): its exit code
// and what it wrote.
func (tf *TestFactory) Run(newCmd func(cli.Factory, cli.Streams) *cobra.Command, args ...string) (code int, stdout, stderr string) {
	tf.t.Helper()
	code, stdout, stderr = tf.RunContext(context.Background(), newCmd, args...)
	return code, stdout, stderr
}

// RunContext is Run until ctx ends.
func (tf *TestFactory) RunContext(ctx context.Context, newCmd func(cli.Factory, cli.Streams) *cobra.Command, args ...string) (code int, stdout, stderr string) {
	tf.t.Helper()
	out, errOut := &Buffer{}, &Buffer{}
	tf.mu.Lock()
	tf.Out, tf.ErrOut = out, errOut
	tf.mu.Unlock()
	streams := cli.Streams{In: strings.NewReader(tf.Stdin), Out: out, ErrOut: errOut}
	labs, cluster := &cli.LabFlags{}, &cli.ClusterFlags{}
	base := factory.New(labs, cluster, "test", tf.deps)
	defer base.Close()
	var f cli.Factory = base
	if tf.labDir != "" {
		f = base.WithLabDir(tf.labDir)
	}
	// The command stands where the binary puts it: under a root named
	// labmate (the root command itself, `labmate`, is the root), so its
	// messages and usage lines name it as a learner types it.
	root := newCmd(f, streams)
	if root.Name() != "labmate" {
		cmd := root
		root = &cobra.Command{Use: "labmate", Args: cli.NoArgs}
		root.AddCommand(cmd)
		args = append([]string{cmd.Name()}, args...)
	}
	labs.AddFlags(root)
	cluster.AddFlags(root)
	root.PersistentPreRunE = base.Begin
	cli.Root(root, streams)
	root.SetContext(ctx)
	code = cli.Execute(root, args, streams)
	return code, out.String(), errOut.String()
}

// Prompter is a cli.Prompter that picks and answers as told: Picks is
// the reference of the lab it picks ("" asks nothing, as on no
// terminal; Err is its answer then, cli.ErrNoTerminal when nil). Says
// answers a y/N question as a learner would type it ("" is no answer at
// all, as a closed stdin: the flag that answers yes is named). Asked
// counts the picks, Questions keeps the questions asked.
type Prompter struct {
	Picks     string
	Err       error
	Asked     int
	Says      string
	Questions []string
}

// Confirm answers question with Says, read as cli.ConfirmOn reads a
// line typed on the terminal.
func (p *Prompter) Confirm(question, yesFlag string) error {
	p.Questions = append(p.Questions, question)
	in := ""
	if p.Says != "" {
		in = p.Says + "\n"
	}
	return cli.ConfirmOn(cli.Streams{In: strings.NewReader(in), Out: io.Discard}, question, yesFlag)
}

func (p *Prompter) PickLab(_ context.Context, labs []catalog.Lab, _ string) (string, error) {
	p.Asked++
	if p.Picks == "" {
		if p.Err != nil {
			return "", p.Err
		}
		return "", cli.ErrNoTerminal
	}
	for _, l := range labs {
		if l.Ref == p.Picks {
			return l.Ref, nil
		}
	}
	return "", cli.ErrNoChoice
}

// Buffer is an io.Writer a test reads while another goroutine writes to
// it (check --watch's lines).
type Buffer struct{ syncio.Buffer }

// Lines are the lines written so far.
func (b *Buffer) Lines() []string {
	s := strings.TrimSuffix(b.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Patience is the least time a test waits for what must come: a wait
// that is met returns at once, so a long one costs nothing when the code
// is right, and a loaded 2-core machine still meets it.
const Patience = 30 * time.Second

// WaitLines waits until at least n lines were written (Patience at
// most), or fails saying what was.
func (b *Buffer) WaitLines(tb testing.TB, n int) []string {
	tb.Helper()
	deadline := time.Now().Add(Patience)
	for time.Now().Before(deadline) {
		if got := b.Lines(); len(got) >= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("waited %v for %d lines, have %d:\n%s", Patience, n, len(b.Lines()), b.String())
	return nil
}

// Main runs a command package's tests (its TestMain) with nothing of the
// machine running them deciding: the installed labs are a temporary
// directory's (XDG_DATA_HOME, and the state and settings likewise), the
// lab named by default is lab ($LABMATE_LAB; "" names none), and
// labroot.EnvRoot and $LABMATE_PLAIN are unset. A test sets what it needs on top (t.Setenv).
func Main(m *testing.M, lab string) {
	tmp, err := os.MkdirTemp("", "labmate-clitest-")
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{"XDG_DATA_HOME": filepath.Join(tmp, "data"), "XDG_STATE_HOME": filepath.Join(tmp, "state"),
		"XDG_CONFIG_HOME": filepath.Join(tmp, "config"), catalog.EnvLab: lab, labroot.EnvRoot: "",
		"LABMATE_PLAIN": ""} {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// Run runs newCmd's command on args with a new test factory (see
// TestFactory.Run).
func Run(t testing.TB, newCmd func(cli.Factory, cli.Streams) *cobra.Command, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return NewTestFactory(t).Run(newCmd, args...)
}
