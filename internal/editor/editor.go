// Package editor opens a lab file at a line and column in the learner's
// editor: which editor ($VISUAL, $EDITOR, then the system's), the
// command line each common editor takes a position with, and the tmux
// command that opens it in a pane beside labmate's. It runs nothing
// itself: the caller runs the command (the TUI through bubbletea, so the
// terminal is handed over and back), and words its errors (typed here)
// in Korean.
package editor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/shell"
)

// Place is where to open: a file of the lab root and a 1-based line and
// column (0 when not known).
type Place struct {
	Path      string // absolute: Resolve made it
	Line, Col int
}

// Editor is the learner's editor: its command line before the file (a
// $EDITOR of several words split as a shell would), the name it is known
// by and the convention it takes a position with.
type Editor struct {
	Argv []string
	Name string // the program's base name, a Debian alternative resolved ("vim", "nano", "code")
	conv convention
	// Window is true for an editor that opens its own window (VS Code,
	// Sublime Text): it is started and left alone, never given a pane or
	// the terminal.
	Window bool
}

// convention is how an editor is told a position.
type convention int

const (
	plusLine  convention = iota // +L FILE: vi, joe, and any editor not known
	vimCursor                   // "+call cursor(L, C)" FILE: vim, neovim
	nanoPlus                    // +L,C FILE
	plusColon                   // +L:C FILE: emacs, micro, kakoune
	fileColon                   // FILE:L:C: helix, Sublime Text
	gotoFlag                    // --goto FILE:L:C: VS Code and its kin
)

// conventions are the editors labmate knows by their program's name.
var conventions = map[string]struct {
	conv   convention
	window bool
}{
	"vi": {plusLine, false}, "vim.tiny": {plusLine, false}, "nvi": {plusLine, false}, "elvis": {plusLine, false},
	"vim": {vimCursor, false}, "nvim": {vimCursor, false}, "vim.basic": {vimCursor, false}, "vim.nox": {vimCursor, false},
	"vim.gtk3": {vimCursor, false}, "view": {vimCursor, false}, "vimx": {vimCursor, false},
	"nano": {nanoPlus, false}, "rnano": {nanoPlus, false},
	"emacs": {plusColon, false}, "emacsclient": {plusColon, false}, "micro": {plusColon, false},
	"kak": {plusColon, false},
	"hx":  {fileColon, false}, "helix": {fileColon, false},
	"subl": {fileColon, true}, "sublime_text": {fileColon, true},
	"code": {gotoFlag, true}, "code-insiders": {gotoFlag, true}, "codium": {gotoFlag, true},
	"vscodium": {gotoFlag, true}, "code-oss": {gotoFlag, true},
	"joe": {plusLine, false}, "jed": {plusLine, false}, "mg": {plusLine, false}, "ne": {plusLine, false},
}

// Defaults are tried in order when neither $VISUAL nor $EDITOR names an
// editor: Debian's and Ubuntu's own choice (the "editor" alternative),
// then the editors a learner is likeliest to know.
var Defaults = []string{"editor", "nano", "vim", "vi"}

// ErrNone is Find's error when no editor is set and none of Defaults is
// installed.
var ErrNone = errors.New("no editor")

// BadVar is Find's error for a $VISUAL or $EDITOR that is not a command
// line (an unclosed quote).
type BadVar struct {
	Var, Value string
	Err        error
}

func (e *BadVar) Error() string { return fmt.Sprintf("$%s=%q: %v", e.Var, e.Value, e.Err) }

// Env is what Find reads: the environment and the PATH. Tests hand in
// their own.
type Env struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
	// EvalSymlinks resolves an alternative (/usr/bin/editor ->
	// /usr/bin/nano); filepath.EvalSymlinks when nil.
	EvalSymlinks func(string) (string, error)
}

// System is the process's own environment.
func System() Env {
	return Env{Getenv: os.Getenv, LookPath: execLookPath, EvalSymlinks: filepath.EvalSymlinks}
}

// Find picks the learner's editor: $VISUAL, then $EDITOR (each split as
// a shell splits words, so EDITOR="emacs -nw" works), then the first of
// Defaults on PATH. The program is known by the name its path resolves
// to, so Debian's "editor" is the editor it points at.
func Find(env Env) (Editor, error) {
	if env.EvalSymlinks == nil {
		env.EvalSymlinks = filepath.EvalSymlinks
	}
	for _, v := range []string{"VISUAL", "EDITOR"} {
		val := strings.TrimSpace(env.Getenv(v))
		if val == "" {
			continue
		}
		argv, err := shell.Fields(val, func(string) string { return "" })
		if err != nil {
			return Editor{}, &BadVar{Var: v, Value: val, Err: err}
		}
		if len(argv) == 0 {
			continue
		}
		return known(argv, env), nil
	}
	for _, name := range Defaults {
		if _, err := env.LookPath(name); err == nil {
			return known([]string{name}, env), nil
		}
	}
	return Editor{}, ErrNone
}

// known names the editor argv runs and its convention.
func known(argv []string, env Env) Editor {
	e := Editor{Argv: argv, Name: filepath.Base(argv[0])}
	if p, err := env.LookPath(argv[0]); err == nil {
		if real, err := env.EvalSymlinks(p); err == nil {
			if _, ok := conventions[nameOf(real)]; ok || !isKnown(e.Name) {
				e.Name = nameOf(real)
			}
		}
	}
	e.Name = strings.TrimSuffix(e.Name, ".exe")
	c, ok := conventions[e.Name]
	if !ok { // nvim.appimage, vim.athena: the program before its build's name
		c = conventions[strings.SplitN(e.Name, ".", 2)[0]]
	}
	e.conv, e.Window = c.conv, c.window
	return e
}

func nameOf(path string) string { return strings.TrimSuffix(filepath.Base(path), ".exe") }

func isKnown(name string) bool { _, ok := conventions[name]; return ok }

// Command is the command line that opens p: the editor's own words, then
// the position and the file as the editor takes them. The path is one
// argument, never read by a shell.
func (e Editor) Command(p Place) []string {
	argv := append([]string(nil), e.Argv...)
	line, col := max(p.Line, 1), max(p.Col, 1)
	switch {
	case p.Line <= 0:
		return append(argv, p.Path)
	case e.conv == vimCursor:
		return append(argv, fmt.Sprintf("+call cursor(%d, %d)", line, col), p.Path)
	case e.conv == nanoPlus:
		return append(argv, fmt.Sprintf("+%d,%d", line, col), p.Path)
	case e.conv == plusColon:
		return append(argv, fmt.Sprintf("+%d:%d", line, col), p.Path)
	case e.conv == fileColon:
		return append(argv, fmt.Sprintf("%s:%d:%d", p.Path, line, col))
	case e.conv == gotoFlag:
		return append(argv, "--goto", fmt.Sprintf("%s:%d:%d", p.Path, line, col))
	}
	return append(argv, fmt.Sprintf("+%d", line), p.Path)
}

// Split is the tmux command that opens p in a new pane beside pane (the
// one labmate runs in), working in dir: to its left when labmate keeps
// at least keep columns of a pane width wide, else below it. The
// editor's words go to tmux as separate arguments, which tmux runs
// without a shell.
func (e Editor) Split(p Place, pane, dir string, width, keep int) []string {
	args := []string{"split-window"}
	if pane != "" {
		args = append(args, "-t", pane)
	}
	if width >= 2*keep+1 {
		args = append(args, "-h", "-b")
	} else {
		args = append(args, "-v")
	}
	if dir != "" {
		args = append(args, "-c", dir)
	}
	return append(append(args, "--"), e.Command(p)...)
}

// Outside is Resolve's error for a path that leaves the lab root.
type Outside struct{ Root, Rel string }

func (e *Outside) Error() string { return fmt.Sprintf("%s is not under %s", e.Rel, e.Root) }

// Resolve is the file rel of the lab root root: a relative path that
// stays inside it, symbolic links followed as far as they exist. A file
// not made yet is allowed (the editor makes it); anything that leads out
// of the root is an *Outside.
func Resolve(root, rel string) (string, error) {
	if root == "" || !filepath.IsAbs(root) || rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", &Outside{Root: root, Rel: rel}
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	// The nearest part of the path that exists decides where it leads.
	probe := path
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(probe)
		if err == nil {
			if r, err := filepath.Rel(realRoot, filepath.Join(real, rest)); err != nil || !filepath.IsLocal(r) {
				return "", &Outside{Root: root, Rel: rel}
			}
			return path, nil
		}
		parent := filepath.Dir(probe)
		if probe == root || parent == probe {
			return "", err
		}
		rest = filepath.Join(filepath.Base(probe), rest)
		probe = parent
	}
}
