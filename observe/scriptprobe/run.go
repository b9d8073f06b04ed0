package scriptprobe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labhub/labmate/observe"
)

// drainGrace is how long output is still read after the script's
// processes were killed: one the sweep could not find (an untagged
// environment, or not Linux) could hold the pipe open forever.
const drainGrace = time.Second

// RunTagVar names the environment variable that tags every process of
// one run with a random ID, so the run's leftovers can be found even
// after they left its process group.
const RunTagVar = "LABMATE_PROBE_RUN"

// newRunTag is a fresh random run ID.
func newRunTag() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// maxArgvLog caps how much of the fake's argv log is read back.
const maxArgvLog = 64 << 10

// runScenario runs one scenario in its own directory (see layout),
// contained by the strongest sandbox the machine allows (see
// SandboxMode), as the spec's sandbox part describes.
//
// The shell names the script in its errors by the path it ran; the
// output shows the learner's path (shownAs) instead of the private copy.
func runScenario(ctx context.Context, opts Options, spec observe.ProbeSpec, sc observe.Scenario, script []byte, mode fs.FileMode, sha, shownAs string) observe.ScriptObs {
	o := observe.ScriptObs{Script: spec.Script, ContentSHA: sha, Scenario: sc.Name, ExitCode: -1}
	if mode&0o111 == 0 {
		o.StartErr, o.Start = NotExecutable, &observe.StartFailure{NoExecBit: true}
		return o
	}
	sbox := opts.sandbox()
	o.Sandbox, o.Limit = string(sbox), opts.Timeout
	base, err := os.MkdirTemp(opts.TempDir, "labmate-probe-*")
	if err != nil {
		return internal(o, setupErr{FailTempDir, opts.TempDir, err})
	}
	defer removeAll(base)
	p, serr := prepare(base, opts, spec, sc, script, mode, sbox)
	if serr != nil {
		return internal(o, *serr)
	}
	return p.run(ctx, o, shownAs)
}

// setupErr is labmate's own failure to set a run up, before the script
// was tried.
type setupErr struct {
	stage, dir string
	err        error
}

// internal is o failed on labmate's side.
func internal(o observe.ScriptObs, e setupErr) observe.ScriptObs {
	o.Internal = true
	o.Failure = &observe.ScriptFailure{Stage: e.stage, Path: e.dir, Errno: errnoName(e.err)}
	o.StartErr = internalErr(e.stage, e.dir, e.err)
	return o
}

// startFailed is o with the script's own start failure: the system's
// words for logs, and the error's portable name.
func startFailed(o observe.ScriptObs, text, errno string) observe.ScriptObs {
	o.StartErr, o.Start = text, &observe.StartFailure{Errno: errno}
	return o
}

// prepared is a run ready to start: its directory, what the helper is
// told, and what the layout watches.
type prepared struct {
	opts   Options
	mode   SandboxMode
	l      layout
	cfg    initConfig
	tag    string
	opened func() []string // nil without a layout
}

// prepare lays out the run's directory: the fake, the script's copy, and
// in the namespaces sandbox the spec's layer.
func prepare(base string, opts Options, spec observe.ProbeSpec, sc observe.Scenario, script []byte, perm fs.FileMode, sbox SandboxMode) (*prepared, *setupErr) {
	if noExec(base) {
		return nil, &setupErr{FailNoExec, opts.TempDir, syscall.EACCES}
	}
	if err := checkSpec(spec.Sandbox); err != nil {
		return nil, &setupErr{FailSandbox, "", err}
	}
	l, err := newLayout(base, sbox)
	if err != nil {
		return nil, &setupErr{FailRunFiles, opts.TempDir, err}
	}
	scriptName := "script/" + path.Base(spec.Script)
	files := []struct {
		name string
		data []byte
		perm fs.FileMode
	}{
		{l.host("fake-argv"), nil, 0o600},
		{l.host("trap-calls"), nil, 0o600},
		{l.host("bin/" + spec.FakeCommand), []byte(fakeScript(l.inside("fake-argv"), sc.Stdout)), 0o755},
		{l.host(scriptName), script, perm.Perm()},
	}
	for _, f := range files {
		if err := writeFile(f.name, f.data, f.perm); err != nil {
			return nil, &setupErr{FailRunFiles, opts.TempDir, err}
		}
	}
	p := &prepared{opts: opts, mode: sbox, l: l, tag: newRunTag()}
	if sbox == SandboxNamespaces {
		watched, err := l.writeLayer(spec.Sandbox, spec.FakeCommand)
		if err == nil {
			p.opened, err = watchOpens(watched)
		}
		if err != nil {
			return nil, &setupErr{FailRunFiles, opts.TempDir, err}
		}
	}
	uid, gid := scriptUser(sbox, l)
	if err := giveRunDir(l, uid); err != nil {
		return nil, &setupErr{FailRunFiles, opts.TempDir, err}
	}
	env := withEnv(scriptEnv(l), append(append([]string(nil), spec.Sandbox.Env...), RunTagVar+"="+p.tag))
	p.cfg = initConfig{Mode: sbox, Root: l.root, RunDir: l.run, Layer: l.layer,
		Binds: bindsOf(spec.Sandbox), Devices: devicesOf(spec.Sandbox),
		Script: l.inside(scriptName), Dir: l.inside("work"), Env: env, UID: uid, GID: gid,
		Limits: limitsOf(spec.Sandbox.Limits), Seccomp: opts.seccomp()}
	return p, nil
}

// command is how the script is started: through the namespaces helper,
// through the helper that contains and execs it, or (a binary without
// the helper entry) by itself, uncontained.
func (p *prepared) command() (*exec.Cmd, *helperProc, error) {
	switch {
	case p.mode == SandboxNamespaces:
		h, err := nsCommand(p.l, p.cfg)
		if err != nil {
			return nil, nil, err
		}
		return h.cmd, h, nil
	case hasHook() && runtime.GOOS == "linux":
		h, err := helperCommand(p.cfg)
		if err != nil {
			return nil, nil, err
		}
		h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return h.cmd, h, nil
	}
	cmd := exec.Command(p.cfg.Script)
	cmd.Dir, cmd.Env = p.cfg.Dir, p.cfg.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if p.cfg.UID >= 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(p.cfg.UID), Gid: uint32(p.cfg.GID)}
	}
	return cmd, nil, nil
}

// run starts the script, waits for it within the time limit, ends every
// process it left, and reports what it did.
func (p *prepared) run(ctx context.Context, o observe.ScriptObs, shownAs string) observe.ScriptObs {
	out, w, err := os.Pipe()
	if err != nil {
		return internal(o, setupErr{FailPipe, "", err})
	}
	defer out.Close()
	cmd, h, err := p.command()
	if err != nil {
		w.Close()
		return internal(o, setupErr{FailSandbox, "", err})
	}
	cmd.Stdin = nil // os/exec connects it to os.DevNull
	cmd.Stdout, cmd.Stderr = w, w
	begin := time.Now()
	if h != nil {
		defer h.close()
		err = h.start()
	} else {
		err = cmd.Start()
	}
	w.Close() // the child has its own copy; EOF comes when every writer is gone
	switch {
	case err == nil:
	case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOMEM):
		return internal(o, setupErr{FailSpawn, "", err}) // fork itself failed: the system, not the script
	case h != nil:
		return internal(o, setupErr{FailSandbox, "", err})
	default:
		return startFailed(o, reason(err), errnoName(err))
	}
	rn := watch(cmd, h, out, p.opts.OutputCap)
	o.TimedOut = rn.wait(ctx, p.opts.Timeout)
	o.Duration = time.Since(begin)
	// Background children the script left behind are still in its group;
	// the ones that left it (setsid, daemons) still carry the tag.
	killGroup(rn.pgid)
	sweep(p.tag)
	rn.drain()
	return p.collect(o, rn, shownAs)
}

// collect turns what a finished run left into its observation.
func (p *prepared) collect(o observe.ScriptObs, rn *running, shownAs string) observe.ScriptObs {
	st, gotStatus := rn.status()
	o.Seccomp = observe.SeccompOff
	var memRefused bool
	if rn.helper {
		o.Seccomp, o.Denied, memRefused = rn.filtered()
	}
	switch {
	case gotStatus && st.Setup != "":
		return internal(o, setupErr{FailSandbox, "", syscall.Errno(st.Errno)})
	case gotStatus && st.StartErr != "":
		return startFailed(o, st.StartErr, errnoName(syscall.Errno(st.Errno)))
	case o.TimedOut:
	case p.mode == SandboxNamespaces:
		if !gotStatus || !st.Started {
			return internal(o, setupErr{FailSandbox, "", syscall.Errno(st.Errno)})
		}
		o.ExitCode = st.Exit
	case rn.cmd.ProcessState != nil:
		o.ExitCode = rn.cmd.ProcessState.ExitCode()
	}
	o.Output, o.Truncated = rn.tail.String()
	o.Output = strings.ReplaceAll(o.Output, p.cfg.Script, shownAs)
	o.FakeArgv = readArgv(p.l.host("fake-argv"))
	if p.mode == SandboxNamespaces {
		o.Traps = &observe.ScriptTraps{Opened: p.opened(), Called: readNulList(p.l.host("trap-calls"))}
	}
	if rn.helper {
		o.Memory = &observe.ScriptMemory{Limit: p.cfg.Limits.Memory, Peak: peakRSS(rn.cmd.ProcessState), Refused: memRefused}
	}
	return o
}

func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// writeFile creates name with exactly perm (umask aside).
//
// It holds syscall.ForkLock for reading while the file is open for
// writing: a process forked meanwhile (the other scenario's script, or
// any exec in labmate) would hold the descriptor until its exec, and a
// script exec'ing this file then fails with "text file busy".
func writeFile(name string, data []byte, perm fs.FileMode) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := os.WriteFile(name, data, 0o600); err != nil {
		return err
	}
	return os.Chmod(name, perm)
}

// removeAll removes a run directory even if the script took permissions
// away from parts of it.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// scriptEnv is a small, predictable environment: the fake first on PATH,
// then the usual system directories.
func scriptEnv(l layout) []string {
	base := os.Getenv("PATH")
	if base == "" || l.in == InsideRunDir {
		// Inside the sandbox only the system's directories exist.
		base = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	tmp := l.inside("tmp")
	if l.in == InsideRunDir {
		tmp = "/tmp"
	}
	env := []string{
		"PATH=" + l.inside("bin") + string(os.PathListSeparator) + base,
		"HOME=" + l.inside("home"),
		"TMPDIR=" + tmp,
		"PWD=" + l.inside("work"),
	}
	if lang := os.Getenv("LANG"); lang != "" {
		env = append(env, "LANG="+lang)
	}
	return env
}

// fakeScript is the stand-in command. It uses shell builtins only, so it
// works whatever PATH the learner's script sets: each call appends its
// argument count and arguments, NUL-terminated, to argvLog, then prints
// the scenario's output byte for byte.
func fakeScript(argvLog, stdout string) string {
	return "#!/bin/sh\n" +
		"# labmate: a stand-in for the real command, for one probe run.\n" +
		"printf '%s\\000' \"$#\" \"$@\" >> " + shellQuote(argvLog) + "\n" +
		"printf '%s' " + shellQuote(stdout) + "\n" +
		"exit 0\n"
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// readArgv parses the fake's log: per call, a count then that many args.
func readArgv(name string) [][]string {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxArgvLog))
	fields := bytes.Split(b, []byte{0})
	var calls [][]string
	for i := 0; i < len(fields); {
		n, err := strconv.Atoi(string(fields[i]))
		if err != nil || n < 0 || i+1+n > len(fields) {
			break
		}
		argv := make([]string, n)
		for j := range argv {
			argv[j] = strings.ToValidUTF8(string(fields[i+1+j]), "\uFFFD")
		}
		calls = append(calls, argv)
		i += 1 + n
	}
	return calls
}

// reason is the operating system's reason for err, without the path or
// operation around it ("exec format error", "no such file or
// directory"): a script's start error must not show the temporary path
// it was copied to.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	return err.Error()
}

// internalErr words a run that failed on labmate's side at stage, for
// logs: "<stage>: <dir>: <reason>" or "<stage>: <reason>". Checks read
// ScriptObs.Failure instead.
func internalErr(stage, dir string, err error) string {
	if dir != "" {
		return stage + ": " + dir + ": " + reason(err)
	}
	return stage + ": " + reason(err)
}
