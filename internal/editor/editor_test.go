package editor

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func env(vars map[string]string, onPath map[string]string) Env {
	return Env{
		Getenv: func(k string) string { return vars[k] },
		LookPath: func(n string) (string, error) {
			if p, ok := onPath[n]; ok {
				return p, nil
			}
			return "", exec.ErrNotFound
		},
		EvalSymlinks: func(p string) (string, error) { return p, nil },
	}
}

func TestFindOrder(t *testing.T) {
	path := map[string]string{"nano": "/usr/bin/nano", "vi": "/usr/bin/vi", "editor": "/usr/bin/editor"}
	cases := []struct {
		name string
		vars map[string]string
		path map[string]string
		argv []string
	}{
		{"visual first", map[string]string{"VISUAL": "nvim", "EDITOR": "nano"}, path, []string{"nvim"}},
		{"editor next", map[string]string{"EDITOR": "emacs -nw"}, path, []string{"emacs", "-nw"}},
		{"quoted words", map[string]string{"EDITOR": `'/opt/my editor/bin/micro' -autosu`}, path, []string{"/opt/my editor/bin/micro", "-autosu"}},
		{"blank falls through", map[string]string{"VISUAL": "  ", "EDITOR": ""}, path, []string{"editor"}},
		{"nano before vi", nil, map[string]string{"nano": "/usr/bin/nano", "vi": "/usr/bin/vi"}, []string{"nano"}},
		{"vi last", nil, map[string]string{"vi": "/usr/bin/vi"}, []string{"vi"}},
	}
	for _, c := range cases {
		e, err := Find(env(c.vars, c.path))
		if err != nil || !slices.Equal(e.Argv, c.argv) {
			t.Errorf("%s: %v %v, want %v", c.name, e.Argv, err, c.argv)
		}
	}
	if _, err := Find(env(nil, nil)); !errors.Is(err, ErrNone) {
		t.Errorf("no editor anywhere: %v", err)
	}
	var bad *BadVar
	if _, err := Find(env(map[string]string{"EDITOR": `vim "unclosed`}, path)); !errors.As(err, &bad) || bad.Var != "EDITOR" {
		t.Errorf("unclosed quote: %v", err)
	}
}

// Debian's "editor" is known by what it points at.
func TestFindResolvesAlternatives(t *testing.T) {
	e := env(nil, map[string]string{"editor": "/usr/bin/editor", "vi": "/usr/bin/vi"})
	e.EvalSymlinks = func(p string) (string, error) {
		return map[string]string{"/usr/bin/editor": "/bin/nano", "/usr/bin/vi": "/usr/bin/vim.basic"}[p], nil
	}
	ed, err := Find(e)
	if err != nil || ed.Name != "nano" || !slices.Equal(ed.Argv, []string{"editor"}) {
		t.Fatalf("editor -> nano: %+v %v", ed, err)
	}
	e.Getenv = func(k string) string { return map[string]string{"EDITOR": "vi"}[k] }
	ed, _ = Find(e)
	if got := ed.Command(Place{Path: "/r/f", Line: 2, Col: 3}); !slices.Equal(got, []string{"vi", "+call cursor(2, 3)", "/r/f"}) {
		t.Errorf("vi that is vim.basic: %q", got)
	}
}

func TestCommandConventions(t *testing.T) {
	p := Place{Path: "/root/gpuop/etc/containerd/conf.d/99-nvidia.toml", Line: 6, Col: 17}
	want := map[string][]string{
		"vi":            {"vi", "+6", p.Path},
		"vim.tiny":      {"vim.tiny", "+6", p.Path},
		"vim":           {"vim", "+call cursor(6, 17)", p.Path},
		"nvim":          {"nvim", "+call cursor(6, 17)", p.Path},
		"nano":          {"nano", "+6,17", p.Path},
		"emacs":         {"emacs", "+6:17", p.Path},
		"emacsclient":   {"emacsclient", "+6:17", p.Path},
		"micro":         {"micro", "+6:17", p.Path},
		"kak":           {"kak", "+6:17", p.Path},
		"hx":            {"hx", p.Path + ":6:17"},
		"helix":         {"helix", p.Path + ":6:17"},
		"code":          {"code", "--goto", p.Path + ":6:17"},
		"codium":        {"codium", "--goto", p.Path + ":6:17"},
		"subl":          {"subl", p.Path + ":6:17"},
		"nvim.appimage": {"nvim.appimage", "+call cursor(6, 17)", p.Path},
		"ed":            {"ed", "+6", p.Path},
	}
	for name, w := range want {
		ed, _ := Find(env(map[string]string{"EDITOR": name}, nil))
		if got := ed.Command(p); !slices.Equal(got, w) {
			t.Errorf("%s: %q, want %q", name, got, w)
		}
	}
	ed, _ := Find(env(map[string]string{"EDITOR": "code --wait"}, nil))
	if got := ed.Command(Place{Path: "/x", Line: 1}); !slices.Equal(got, []string{"code", "--wait", "--goto", "/x:1:1"}) || !ed.Window {
		t.Errorf("code --wait: %q window %v", got, ed.Window)
	}
	if got := ed.Command(Place{Path: "/x"}); !slices.Equal(got, []string{"code", "--wait", "/x"}) {
		t.Errorf("no line: %q", got)
	}
}

func TestSplit(t *testing.T) {
	ed, _ := Find(env(map[string]string{"EDITOR": "nano"}, nil))
	p := Place{Path: "/r/a b.toml", Line: 3, Col: 1}
	if got := strings.Join(ed.Split(p, "%3", "/r", 120, 40), "|"); got != "split-window|-t|%3|-h|-b|-c|/r|--|nano|+3,1|/r/a b.toml" {
		t.Errorf("wide pane: %s", got)
	}
	if got := strings.Join(ed.Split(p, "%3", "/r", 60, 40), "|"); got != "split-window|-t|%3|-v|-c|/r|--|nano|+3,1|/r/a b.toml" {
		t.Errorf("narrow pane: %s", got)
	}
}

func TestResolveStaysInTheRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "etc"), 0o755))
	must(os.WriteFile(filepath.Join(root, "etc", "a.toml"), nil, 0o644))
	must(os.Symlink(outside, filepath.Join(root, "away")))
	must(os.Symlink(filepath.Join(root, "etc"), filepath.Join(root, "inside")))
	for rel, ok := range map[string]bool{
		"etc/a.toml":        true,
		"etc/new/b.toml":    true, // not made yet: the editor makes it
		"inside/a.toml":     true,
		"../etc/passwd":     false,
		"/etc/passwd":       false,
		"away/x":            false,
		"away/deeper/y":     false,
		"etc/../../outside": false,
		"":                  false,
	} {
		p, err := Resolve(root, rel)
		var out *Outside
		switch {
		case ok && (err != nil || !strings.HasPrefix(p, root+string(filepath.Separator))):
			t.Errorf("%q: %q %v, want inside", rel, p, err)
		case !ok && !errors.As(err, &out):
			t.Errorf("%q: %q %v, want *Outside", rel, p, err)
		}
	}
}

// The command line runs as it is: a fake editor sees its position and
// the file as single arguments, a path with spaces and quotes whole.
func TestCommandRunsAsWritten(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "argv")
	script := filepath.Join(dir, "nano")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nfor a; do printf '%s\\n' \"$a\"; done > \""+log+"\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ed, err := Find(env(map[string]string{"EDITOR": script}, map[string]string{script: script}))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, `it's a "file".toml`)
	argv := ed.Command(Place{Path: file, Line: 6, Col: 17})
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, _ := os.ReadFile(log)
	if string(got) != "+6,17\n"+file+"\n" {
		t.Errorf("the editor got %q", got)
	}
}
