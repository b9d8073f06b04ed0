package scriptprobe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
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

// runScenario runs one scenario in its own temporary directory:
//
//	dir/bin/<fake>       the fake command, first on PATH
//	dir/script/<name>    a private copy of the learner's script
//	dir/home, dir/tmp    HOME and TMPDIR
//	dir/work             the working directory
//	dir/fake-argv        what the fake was called with
//
// The shell names the script in its errors by the path it ran; the
// output shows the learner's path (shownAs) instead of the private copy.
func runScenario(ctx context.Context, opts Options, spec observe.ProbeSpec, sc observe.Scenario, script []byte, mode fs.FileMode, sha, shownAs string) observe.ScriptObs {
	o := observe.ScriptObs{Script: spec.Script, ContentSHA: sha, Scenario: sc.Name, ExitCode: -1}
	if mode&0o111 == 0 {
		o.StartErr = NotExecutable
		return o
	}
	// Until the script is started, every failure is labmate's own.
	internal := func(stage string, err error) observe.ScriptObs {
		o.Internal = true
		o.StartErr = internalErr(stage, opts.TempDir, err)
		return o
	}
	dir, err := os.MkdirTemp(opts.TempDir, "labmate-probe-*")
	if err != nil {
		return internal(FailTempDir, err)
	}
	defer removeAll(dir)
	if noExec(dir) {
		return internal(FailNoExec, syscall.EACCES)
	}
	for _, d := range []string{"bin", "script", "home", "tmp", "work"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return internal(FailRunFiles, err)
		}
	}
	argvLog := filepath.Join(dir, "fake-argv")
	scriptCopy := filepath.Join(dir, "script", path.Base(spec.Script))
	files := []struct {
		name string
		data []byte
		perm fs.FileMode
	}{
		{argvLog, nil, 0o600},
		{filepath.Join(dir, "bin", spec.FakeCommand), []byte(fakeScript(argvLog, sc.Stdout)), 0o755},
		{scriptCopy, script, mode.Perm()},
	}
	for _, f := range files {
		if err := writeFile(f.name, f.data, f.perm); err != nil {
			return internal(FailRunFiles, err)
		}
	}

	r, w, err := os.Pipe()
	if err != nil {
		return internal(FailPipe, err)
	}
	cmd := exec.Command(scriptCopy)
	cmd.Dir = filepath.Join(dir, "work")
	tag := newRunTag()
	cmd.Env = append(scriptEnv(dir), RunTagVar+"="+tag)
	cmd.Stdin = nil // os/exec connects it to os.DevNull
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	start := time.Now()
	err = cmd.Start()
	w.Close() // the child has its own copy; EOF comes when every writer is gone
	if err != nil {
		r.Close()
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOMEM) {
			// fork itself failed: the system, not the script.
			return internal(FailSpawn, err)
		}
		o.StartErr = reason(err)
		return o
	}
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
	timer := time.NewTimer(opts.Timeout)
	defer timer.Stop()
	select {
	case <-waited:
	case <-timer.C:
		o.TimedOut = true
		killGroup(pgid)
		<-waited
	case <-ctx.Done():
		killGroup(pgid)
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

	if !o.TimedOut && cmd.ProcessState != nil {
		o.ExitCode = cmd.ProcessState.ExitCode()
	}
	o.Output, o.Truncated = tail.String()
	o.Output = strings.ReplaceAll(o.Output, scriptCopy, shownAs)
	o.FakeArgv = readArgv(argvLog)
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
func scriptEnv(dir string) []string {
	base := os.Getenv("PATH")
	if base == "" {
		base = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	env := []string{
		"PATH=" + filepath.Join(dir, "bin") + string(os.PathListSeparator) + base,
		"HOME=" + filepath.Join(dir, "home"),
		"TMPDIR=" + filepath.Join(dir, "tmp"),
		"PWD=" + filepath.Join(dir, "work"),
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

// internalErr is the StartErr of a run that failed on labmate's side at
// stage (see FailTempDir): "<stage>: <temp dir>: <reason>" for the
// stages about the directory, "<stage>: <reason>" for the others.
func internalErr(stage, tempDir string, err error) string {
	switch stage {
	case FailTempDir, FailRunFiles, FailNoExec:
		return stage + ": " + tempDir + ": " + reason(err)
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
