package doctor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/state"
)

// rootProbe: where the lab's files go and whether the learner can work
// there (labroot.Look): a root still to be made is a warning with the
// mkdir that makes it; one the learner cannot use fails, with a fix that
// needs no sudo and changes no one else's directory.
func rootProbe(o Lab) Finding {
	p := labroot.Look(o.Root)
	v := Fail
	switch {
	case p.State == labroot.Ready:
		v = OK
	case p.State == labroot.Missing && p.CanMake:
		v = Warn
	}
	return finding("root", v, p.Detail(), p.Fixes()...)
}

// watcherProbe makes a real fsnotify watcher, watches the lab root (or
// its nearest existing parent, as the file source does) and checks that
// an event arrives for a change in a private temp directory. It also
// reports the inotify limits.
func watcherProbe(ctx context.Context, root labroot.Root, o Options) []Finding {
	limits := inotifyLimits(o.InotifyDir)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return []Finding{finding("watcher", Fail, content.Msg("ops.doctor.watcher.create", "err", err), fix("inotify_instances")), limits}
	}
	defer w.Close()
	dir := nearestDir(root.Path)
	if err := w.Add(dir); err != nil {
		how := fix("inotify_watches")
		if !errors.Is(err, syscall.ENOSPC) {
			// Not the kernel's limit: the root (or the way to it) the
			// learner cannot use, which the root's finding fixes.
			how = strings.Join(labroot.Look(root).Fixes(), "\n")
		}
		return []Finding{finding("watcher", Fail, content.Msg("ops.doctor.watcher.add", "dir", dir, "err", labroot.Why(err)), how), limits}
	}
	tmp, err := os.MkdirTemp("", "labmate-doctor-*")
	if err != nil {
		return []Finding{finding("watcher", Warn, content.Msg("ops.doctor.watcher.no_tmp", "dir", dir, "err", err)), limits}
	}
	defer os.RemoveAll(tmp)
	if err := w.Add(tmp); err != nil {
		return []Finding{finding("watcher", Fail, content.Msg("ops.doctor.watcher.add", "dir", tmp, "err", err), fix("inotify_watches")), limits}
	}
	probe := filepath.Join(tmp, "probe")
	if err := os.WriteFile(probe, []byte("x"), 0o600); err != nil {
		return []Finding{finding("watcher", Warn, content.Msg("ops.doctor.watcher.no_tmp", "dir", dir, "err", err)), limits}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	for {
		select {
		case ev := <-w.Events:
			if ev.Name == probe {
				return []Finding{finding("watcher", OK, content.Msg("ops.doctor.watcher.ok", "dir", dir)), limits}
			}
		case err := <-w.Errors:
			return []Finding{finding("watcher", Fail, content.Msg("ops.doctor.watcher.error", "err", err), fix("inotify_watches")), limits}
		case <-ctx.Done():
			return []Finding{finding("watcher", Fail, content.Msg("ops.doctor.watcher.silent", "dir", dir)), limits}
		}
	}
}

// nearestDir returns p or its nearest existing parent directory.
func nearestDir(p string) string {
	for {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// Below these the limits were lowered from the kernel's defaults; labmate
// itself needs one instance and a handful of watches, but editors and
// other watchers of the same user share the budget.
const (
	minWatches   = 8192
	minInstances = 128
)

func inotifyLimits(dir string) Finding {
	watches, werr := readInt(filepath.Join(dir, "max_user_watches"))
	instances, ierr := readInt(filepath.Join(dir, "max_user_instances"))
	if werr != nil || ierr != nil {
		return finding("inotify", Skip, content.Msg("ops.doctor.inotify.unknown", "dir", dir))
	}
	detail := content.Msg("ops.doctor.inotify.values", "watches", watches, "instances", instances)
	var fixes []string
	if watches < minWatches {
		fixes = append(fixes, fix("inotify_watches"))
	}
	if instances < minInstances {
		fixes = append(fixes, fix("inotify_instances"))
	}
	if len(fixes) > 0 {
		return finding("inotify", Warn, detail+" "+content.Msg("ops.doctor.inotify.low", "min_watches", minWatches, "min_instances", minInstances), fixes...)
	}
	return finding("inotify", OK, detail)
}

func readInt(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(raw)))
}

// stateProbe loads the progress file as labmate would (a damaged one is
// set aside, as the TUI would do, and said so).
func stateProbe(o Lab) Finding {
	if o.StatePath == "" {
		return finding("state", Skip, content.Msg("ops.doctor.state.none"))
	}
	s := &state.Store{Path: o.StatePath}
	f, err := s.Load()
	switch {
	case errors.Is(err, state.ErrCorrupt):
		return finding("state", Warn, content.Msg("ops.doctor.state.damaged", "err", err))
	case err != nil:
		return finding("state", Fail, content.Msg("ops.doctor.state.unreadable", "path", o.StatePath, "err", err),
			fix("state_perm", "dir", filepath.Dir(o.StatePath)))
	}
	return finding("state", OK, content.Msg("ops.doctor.state.ok", "path", o.StatePath, "passed", len(f.Progress.PassedAt)))
}

type getenvEnviron func(string) string

func (g getenvEnviron) Environ() []string      { return nil }
func (g getenvEnviron) Getenv(k string) string { return g(k) }

// terminalProbe: the colour profile the TUI will pick from TERM, COLORTERM
// and NO_COLOR, and a UTF-8 locale for the Korean text.
func terminalProbe(o Options) []Finding {
	env := o.Getenv
	term, colorterm := env("TERM"), env("COLORTERM")
	out := termenv.NewOutput(os.Stdout, termenv.WithEnvironment(getenvEnviron(env)), termenv.WithTTY(true))
	profile := out.EnvColorProfile()
	names := map[termenv.Profile]string{termenv.TrueColor: "truecolor", termenv.ANSI256: "256", termenv.ANSI: "16", termenv.Ascii: "none"}
	detail := content.Msg("ops.doctor.term.values", "term", orDash(term), "colorterm", orDash(colorterm),
		"profile", content.Msg("ops.doctor.term.profile."+names[profile]))
	if !o.TTY {
		detail += " " + content.Msg("ops.doctor.term.not_tty")
	}
	var f Finding
	inTmux := env("TMUX") != ""
	switch {
	case term == "" || term == "dumb":
		f = finding("terminal", Fail, detail+" "+content.Msg("ops.doctor.term.dumb"), fix("term"))
	case env("NO_COLOR") != "":
		f = finding("terminal", OK, detail+" "+content.Msg("ops.doctor.term.no_color"))
	case profile == termenv.Ascii || profile == termenv.ANSI:
		how := fix("term")
		if inTmux {
			how = fix("tmux_terminal")
		}
		f = finding("terminal", Warn, detail+" "+content.Msg("ops.doctor.term.few_colours"), how)
	default:
		f = finding("terminal", OK, detail)
	}
	return []Finding{f, localeProbe(env)}
}

func localeProbe(env func(string) string) Finding {
	// The first of these that is set decides, as in setlocale(3).
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := env(k); v != "" {
			low := strings.ToLower(v)
			if strings.Contains(low, "utf-8") || strings.Contains(low, "utf8") {
				return finding("locale", OK, content.Msg("ops.doctor.locale.ok", "var", k, "value", v))
			}
			return finding("locale", Warn, content.Msg("ops.doctor.locale.not_utf8", "var", k, "value", v), fix("locale"))
		}
	}
	return finding("locale", Warn, content.Msg("ops.doctor.locale.unset"), fix("locale"))
}

// tmuxProbe reads the tmux options that change how labmate behaves inside
// tmux: escape-time (Esc and Alt keys), set-clipboard (copying commands
// with OSC 52) and default-terminal (colours).
func tmuxProbe(ctx context.Context, o Options) []Finding {
	if o.Getenv("TMUX") == "" {
		return []Finding{finding("tmux", Skip, content.Msg("ops.doctor.tmux.not_inside"))}
	}
	ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	show := func(name string) (string, error) {
		cmd := exec.CommandContext(ctx, o.Tmux, "show", "-gv", name)
		cmd.Env = tmuxEnv(o.Getenv)
		cmd.Stdin = nil
		// A wedged tmux (or a child holding its stdout) must not outlive ctx.
		cmd.WaitDelay = 200 * time.Millisecond
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	escape, err := show("escape-time")
	if err != nil {
		return []Finding{finding("tmux", Warn, content.Msg("ops.doctor.tmux.unreadable", "err", clip(err.Error(), 120)))}
	}
	clipboard, _ := show("set-clipboard")
	defterm, _ := show("default-terminal")
	detail := content.Msg("ops.doctor.tmux.values", "escape", escape, "clipboard", orDash(clipboard), "term", orDash(defterm))

	var problems, fixes []string
	if ms, err := strconv.Atoi(escape); err != nil || ms > 50 {
		problems = append(problems, content.Msg("ops.doctor.tmux.escape_slow", "ms", escape))
		fixes = append(fixes, fix("tmux_escape"))
	}
	if clipboard != "on" && clipboard != "external" {
		problems = append(problems, content.Msg("ops.doctor.tmux.clipboard_off"))
		fixes = append(fixes, fix("tmux_clipboard"))
	}
	if !strings.Contains(defterm, "256color") && !strings.HasSuffix(defterm, "-direct") {
		problems = append(problems, content.Msg("ops.doctor.tmux.term_few_colours"))
		fixes = append(fixes, fix("tmux_terminal"))
	}
	if len(problems) > 0 {
		return []Finding{finding("tmux", Warn, detail+" "+strings.Join(problems, " "), fixes...)}
	}
	return []Finding{finding("tmux", OK, detail)}
}

// tmuxEnv passes the variables tmux needs to find the server (TMUX,
// TMUX_TMPDIR) from the probed environment, on top of the process's own.
func tmuxEnv(env func(string) string) []string {
	out := os.Environ()
	for _, k := range []string{"TMUX", "TMUX_TMPDIR", "HOME", "PATH"} {
		if v := env(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}
