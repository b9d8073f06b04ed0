package scriptprobe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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
	"unicode/utf8"

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
// SandboxMode).
//
// The shell names the script in its errors by the path it ran; the
// output shows the learner's path (shownAs) instead of the private copy.
func runScenario(ctx context.Context, opts Options, spec observe.ProbeSpec, sc observe.Scenario, script []byte, mode fs.FileMode, sha, shownAs string) observe.ScriptObs {
	o := observe.ScriptObs{Script: spec.Script, ContentSHA: sha, Scenario: sc.Name, ExitCode: -1}
	if mode&0o111 == 0 {
		o.StartErr = NotExecutable
		return o
	}
	sbox := opts.sandbox()
	o.Sandbox, o.Limit = string(sbox), opts.Timeout
	// Until the script is started, every failure is labmate's own.
	internal := func(stage, dir string, err error) observe.ScriptObs {
		o.Internal = true
		o.Failure = &observe.ScriptFailure{Stage: stage, Path: dir, Errno: errnoName(err)}
		o.StartErr = internalErr(stage, dir, err)
		return o
	}
	base, err := os.MkdirTemp(opts.TempDir, "labmate-probe-*")
	if err != nil {
		return internal(FailTempDir, opts.TempDir, err)
	}
	defer removeAll(base)
	if noExec(base) {
		return internal(FailNoExec, opts.TempDir, syscall.EACCES)
	}
	l, err := newLayout(base, sbox)
	if err != nil {
		return internal(FailRunFiles, opts.TempDir, err)
	}
	scriptName := "script/" + path.Base(spec.Script)
	files := []struct {
		name string
		data []byte
		perm fs.FileMode
	}{
		{l.host("fake-argv"), nil, 0o600},
		{l.host("abs-calls"), nil, 0o600},
		{l.host("bin/" + spec.FakeCommand), []byte(fakeScript(l.inside("fake-argv"), sc.Stdout)), 0o755},
		{l.host(scriptName), script, mode.Perm()},
	}
	for _, f := range files {
		if err := writeFile(f.name, f.data, f.perm); err != nil {
			return internal(FailRunFiles, opts.TempDir, err)
		}
	}
	var configOpened func() bool
	if sbox == SandboxNamespaces {
		trapCfg, err := l.writeTraps(spec.FakeCommand)
		if err == nil {
			configOpened, err = configWatch(trapCfg)
		}
		if err != nil {
			return internal(FailRunFiles, opts.TempDir, err)
		}
	}
	uid, gid := scriptUser(sbox, l)
	if err := giveRunDir(l, uid); err != nil {
		return internal(FailRunFiles, opts.TempDir, err)
	}

	r, w, err := os.Pipe()
	if err != nil {
		return internal(FailPipe, "", err)
	}
	tag := newRunTag()
	cfg := initConfig{Mode: sbox, Root: l.root, RunDir: l.run, TrapDir: l.trap,
		Script: l.inside(scriptName), Dir: l.inside("work"), Env: append(scriptEnv(l), RunTagVar+"="+tag), UID: uid, GID: gid}
	var cmd *exec.Cmd
	var status *os.File
	switch {
	case sbox == SandboxNamespaces:
		cmd, status, err = nsCommand(l, cfg)
	case hasHook() && runtime.GOOS == "linux":
		cmd, status, err = helperCommand(cfg)
		if err == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		}
	default:
		// No helper in this binary: the script itself, uncontained.
		cmd = exec.Command(cfg.Script)
		cmd.Dir, cmd.Env = cfg.Dir, cfg.Env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if uid >= 0 {
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
	}
	if err != nil {
		r.Close()
		w.Close()
		return internal(FailSandbox, "", err)
	}
	cmd.Stdin = nil // os/exec connects it to os.DevNull
	cmd.Stdout, cmd.Stderr = w, w

	start := time.Now()
	err = cmd.Start()
	w.Close() // the child has its own copy; EOF comes when every writer is gone
	if status != nil {
		cmd.ExtraFiles[0].Close()
	}
	if err != nil {
		r.Close()
		if status != nil {
			status.Close()
		}
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOMEM) {
			// fork itself failed: the system, not the script.
			return internal(FailSpawn, "", err)
		}
		if status != nil {
			return internal(FailSandbox, "", err)
		}
		o.StartErr = reason(err)
		return o
	}
	var st initStatus
	statusRead := make(chan bool, 1)
	go func() {
		defer func() { _ = recover() }()
		if status == nil {
			statusRead <- false
			return
		}
		defer status.Close()
		statusRead <- json.NewDecoder(status).Decode(&st) == nil
	}()
	pgid := cmd.Process.Pid
	tail := newTail(opts.OutputCap)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		defer func() { _ = recover() }()
		_, _ = io.Copy(tail, r)
	}()

	waited := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				waited <- fmt.Errorf("wait: %v", r)
			}
		}()
		waited <- cmd.Wait()
	}()
	// Killing the namespaces helper (PID 1) kills every process of the
	// run; elsewhere the group and the tag find them.
	kill := func() {
		_ = cmd.Process.Kill()
		killGroup(pgid)
	}
	timer := time.NewTimer(opts.Timeout)
	defer timer.Stop()
	select {
	case <-waited:
	case <-timer.C:
		o.TimedOut = true
		kill()
		<-waited
	case <-ctx.Done():
		kill()
		<-waited
	}
	o.Duration = time.Since(start)
	// Background children the script left behind are still in its group;
	// the ones that left it (setsid, daemons) still carry the tag.
	killGroup(pgid)
	sweep(tag)
	select {
	case <-drained:
	case <-time.After(drainGrace):
	}
	r.Close()
	<-drained
	gotStatus := <-statusRead

	switch {
	case gotStatus && st.Setup != "":
		return internal(FailSandbox, "", syscall.Errno(st.Errno))
	case gotStatus && st.StartErr != "":
		o.StartErr = st.StartErr
		return o
	case o.TimedOut:
	case sbox == SandboxNamespaces:
		if !gotStatus || !st.Started {
			return internal(FailSandbox, "", syscall.Errno(st.Errno))
		}
		o.ExitCode = st.Exit
	case cmd.ProcessState != nil:
		o.ExitCode = cmd.ProcessState.ExitCode()
	}
	o.Output, o.Truncated = tail.String()
	o.Output = strings.ReplaceAll(o.Output, cfg.Script, shownAs)
	o.FakeArgv = readArgv(l.host("fake-argv"))
	if sbox == SandboxNamespaces {
		o.Traps = &observe.ScriptTraps{AbsCalls: readNulList(l.host("abs-calls"))}
		if configOpened != nil && configOpened() {
			o.Traps.ConfigOpened = []string{ConfigTrap}
		}
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

// tail keeps the last n bytes written to it in a fixed ring, so a script
// printing megabytes costs no more memory than a quiet one.
type tail struct {
	buf   []byte
	next  int
	full  bool
	total int64
}

func newTail(n int) *tail { return &tail{buf: make([]byte, n)} }

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	t.total += int64(n)
	if len(p) >= len(t.buf) {
		copy(t.buf, p[len(p)-len(t.buf):])
		t.next, t.full = 0, true
		return n, nil
	}
	c := copy(t.buf[t.next:], p)
	if c < len(p) {
		copy(t.buf, p[c:])
		t.full = true
	}
	t.next = (t.next + len(p)) % len(t.buf)
	if t.next == 0 && len(p) > 0 {
		t.full = true
	}
	return n, nil
}

// String returns the kept tail as valid UTF-8 and whether anything was
// dropped before it.
func (t *tail) String() (string, bool) {
	var b []byte
	if t.full {
		b = append(append(b, t.buf[t.next:]...), t.buf[:t.next]...)
	} else {
		b = append(b, t.buf[:t.next]...)
	}
	truncated := t.total > int64(len(b))
	if truncated {
		// Do not start in the middle of a character.
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), truncated
}
