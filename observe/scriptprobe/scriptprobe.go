// Package scriptprobe runs a learner's script for real, the way the lab's
// grader would: once per scenario, each in a fresh temporary directory,
// with a fake command (a tiny shell script) first on PATH that records how
// it was called and prints the scenario's output. It is an observation
// source: it reports what the script did (exit code, the fake's argv,
// output tail) and leaves judging to package checks.
//
// A run never touches the lab root: the script is copied into the run's
// temporary directory from the bytes the file source observed, so a later
// edit cannot race it, and the directory is removed afterwards.
//
// The prober is mechanism; the lab brings the policy. The spec's sandbox
// part (observe.SandboxSpec) says what the run's root shows and holds,
// what is watched, the environment and the limits; the prober applies it
// in the strongest mode the machine allows (sandbox.go), and in every
// mode with rlimits and a system-call filter (seccomp_linux.go).
package scriptprobe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/labhub/labmate/observe"
)

// Name is the source name reported in the Synced observation.
const Name = "scriptprobe"

// NotExecutable is ScriptObs.StartErr for a script without an execute bit
// (its Start has NoExecBit): it is reported, not run through a shell.
const NotExecutable = "not executable"

// Stages at which a run can fail on labmate's side, before the script
// is tried (observe.ScriptFailure.Stage).
const (
	FailTempDir  = observe.FailTempDir
	FailRunFiles = observe.FailRunFiles
	FailNoExec   = observe.FailNoExec
	FailPipe     = observe.FailPipe
	FailSpawn    = observe.FailSpawn
	FailSandbox  = observe.FailSandbox
	FailPanic    = observe.FailPanic
)

// Defaults for Options.
const (
	DefaultTimeout   = 5 * time.Second
	DefaultOutputCap = 64 << 10
)

// Options tune a Prober. Zero values mean the defaults.
type Options struct {
	// Timeout bounds one run; the script's whole process group is killed
	// when it passes, and (on Linux) every process carrying the run's
	// tag (RunTagVar), also those that left the group.
	Timeout time.Duration
	// OutputCap is how many bytes of combined stdout+stderr are kept (the
	// tail); the rest is counted and dropped.
	OutputCap int
	// TempDir is where run directories are made (default os.TempDir()).
	// It must allow executing files.
	TempDir string
	// Sandbox caps the sandbox mode (as SandboxVar does, which it
	// overrides); "" tries the strongest the machine allows.
	Sandbox SandboxMode
	// Seccomp caps the system-call filter (as SeccompVar does, which it
	// overrides): observe.SeccompNotify, SeccompErrno or SeccompOff; ""
	// tries the strongest the kernel allows.
	Seccomp string
}

// sandbox is the mode runs use.
func (o Options) sandbox() SandboxMode {
	c := o.Sandbox
	if c == "" {
		c = SandboxMode(os.Getenv(SandboxVar))
	}
	m, _ := sandboxCapped(c)
	return m
}

// seccomp is the strongest filter runs try.
func (o Options) seccomp() string {
	if o.Seccomp != "" {
		return o.Seccomp
	}
	return os.Getenv(SeccompVar)
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.OutputCap <= 0 {
		o.OutputCap = DefaultOutputCap
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	return o
}

// Prober runs the scripts of a set of ProbeSpecs when their content
// changes. It implements observe.Source and the engine's Reactor (Offer).
type Prober struct {
	root  string
	specs []observe.ProbeSpec
	opts  Options

	mu      sync.Mutex
	pending map[string]observe.FileObs // script path -> newest offered state
	wake    chan struct{}
}

// New returns a prober for the given specs. root is the lab root the
// specs' paths are relative to: output names the script by its path
// there, and the prober reads from it only when an offered observation
// carries no content. It never writes there.
func New(root string, specs []observe.ProbeSpec, opts Options) *Prober {
	return &Prober{
		root:    root,
		specs:   append([]observe.ProbeSpec(nil), specs...),
		opts:    opts.withDefaults(),
		pending: map[string]observe.FileObs{},
		wake:    make(chan struct{}, 1),
	}
}

// Name implements observe.Source.
func (p *Prober) Name() string { return Name }

// Offer hands the prober a file observation. It never blocks; only the
// newest state of each script is kept until Run gets to it. Files no spec
// names are ignored.
func (p *Prober) Offer(f observe.FileObs) {
	if p.spec(f.Path) == nil {
		return
	}
	p.mu.Lock()
	p.pending[f.Path] = f
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *Prober) spec(path string) *observe.ProbeSpec {
	for i := range p.specs {
		if p.specs[i].Script == path {
			return &p.specs[i]
		}
	}
	return nil
}

// take removes and returns one pending observation, in spec order.
func (p *Prober) take() (observe.FileObs, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.specs {
		if f, ok := p.pending[s.Script]; ok {
			delete(p.pending, s.Script)
			return f, true
		}
	}
	return observe.FileObs{}, false
}

// newer reports whether a state different from k is waiting for path.
func (p *Prober) newer(path string, k runKey) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.pending[path]
	return ok && keyOf(f) != k
}

// runKey is what decides a rerun: the script's bytes and whether it may
// be executed (chmod +x must be seen even when the bytes stay the same).
// Modification times play no part.
type runKey struct {
	sha        string
	executable bool
}

func keyOf(f observe.FileObs) runKey {
	if f.State != observe.FilePresent {
		return runKey{}
	}
	sum := sha256.Sum256(f.Content)
	return runKey{sha: hex.EncodeToString(sum[:]), executable: f.Mode&0o111 != 0}
}

// Run implements observe.Source: it runs scripts as their states are
// offered, and reports Synced once the first offered state of every spec
// has been handled.
func (p *Prober) Run(ctx context.Context, out chan<- observe.Observation) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("script prober panic: %v\n%s", r, debug.Stack())
		}
	}()
	handled := map[string]bool{}
	last := map[string]runKey{}
	synced := false
	emit := func(o observe.Observation) bool {
		select {
		case out <- o:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		if !synced && len(handled) == len(p.specs) {
			if !emit(observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: Name}}) {
				return nil
			}
			synced = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-p.wake:
		}
		for {
			f, ok := p.take()
			if !ok {
				break
			}
			spec := p.spec(f.Path)
			if f.State == observe.FilePresent && f.Content == nil && f.Size > 0 {
				f = p.reread(f)
			}
			k := keyOf(f)
			if f.State != observe.FilePresent || k == last[f.Path] {
				handled[f.Path] = true
				continue
			}
			obs, complete := p.probe(ctx, *spec, f, k)
			if ctx.Err() != nil {
				return nil
			}
			if !complete {
				continue // a newer state is pending; it is taken next
			}
			internal := false
			for i := range obs {
				if !emit(observe.Observation{Time: time.Now(), Script: &obs[i]}) {
					return nil
				}
				internal = internal || obs[i].Internal
			}
			if !internal {
				// labmate's own failure says nothing about the script:
				// the same content is tried again when offered again.
				last[f.Path] = k
			}
			handled[f.Path] = true
		}
	}
}

// reread fills in the content of an observation that came without it.
func (p *Prober) reread(f observe.FileObs) observe.FileObs {
	return observe.ReadFile(p.root, f.Path)
}

// probe runs every scenario of spec against f's content, concurrently.
// It gives up (complete false) when a different state of the same script
// is offered meanwhile, or ctx ends.
func (p *Prober) probe(ctx context.Context, spec observe.ProbeSpec, f observe.FileObs, k runKey) ([]observe.ScriptObs, bool) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs := make([]observe.ScriptObs, len(spec.Scenarios))
	var wg sync.WaitGroup
	for i, sc := range spec.Scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obs[i] = p.runSafe(runCtx, spec, sc, f.Content, f.Mode, k.sha)
		}()
	}
	done := make(chan struct{})
	go func() {
		defer func() { _ = recover() }()
		wg.Wait()
		close(done)
	}()
	for {
		select {
		case <-done:
			return obs, runCtx.Err() == nil
		case <-ctx.Done():
			<-done
			return nil, false
		case <-p.wake:
			if p.newer(f.Path, k) {
				cancel()
				<-done
				return nil, false
			}
			// Another script's state: Run's loop takes it after this one.
		}
	}
}

// runSafe is run with a panic turned into a failed observation.
func (p *Prober) runSafe(ctx context.Context, spec observe.ProbeSpec, sc observe.Scenario, script []byte, mode fs.FileMode, sha string) (o observe.ScriptObs) {
	defer func() {
		if r := recover(); r != nil {
			o = observe.ScriptObs{Script: spec.Script, ContentSHA: sha, Scenario: sc.Name, ExitCode: -1,
				StartErr: fmt.Sprintf("%s: %v", FailPanic, r), Internal: true, Failure: &observe.ScriptFailure{Stage: FailPanic}}
		}
	}()
	return runScenario(ctx, p.opts, spec, sc, script, mode, sha, filepath.Join(p.root, filepath.FromSlash(spec.Script)))
}
