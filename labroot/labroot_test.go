package labroot

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/labhub/labmate/content"
)

// The LabHub pod's root keeps /root/gpuop; anyone else's default is in
// their home; a lab may say ~/ itself; other paths are kept.
func TestDefaultIsTheLearnersOwn(t *testing.T) {
	for _, c := range []struct {
		declared string
		home     Home
		want     string
	}{
		{"/root/gpuop", LabHub, "/root/gpuop"},
		{"/root/gpuop", Home{"/home/learner"}, "/home/learner/gpuop"},
		{"/root/gpuop", Home{"/tmp/ci-home"}, "/tmp/ci-home/gpuop"}, // root whose home is not /root
		{"~/gpuop", LabHub, "/root/gpuop"},
		{"~/gpuop", Home{"/home/learner"}, "/home/learner/gpuop"},
		{"~/labs/gpu quota", Home{"/Users/kim"}, "/Users/kim/labs/gpu quota"},
		{"/root", Home{"/home/learner"}, "/home/learner"},
		{"~", Home{"/home/learner"}, "/home/learner"},
		{"/tmp/kit-demo", Home{"/home/learner"}, "/tmp/kit-demo"},
		{"/rootfs/lab", Home{"/home/learner"}, "/rootfs/lab"}, // not under /root
		{"/root/gpuop", Home{}, "/root/gpuop"},                // no home known: as declared
	} {
		got, err := Default(c.declared, c.home)
		if err != nil || got != c.want {
			t.Errorf("Default(%q, %q) = %q, %v; want %q", c.declared, c.home.Dir, got, err, c.want)
		}
	}
	if _, err := Default("~/gpuop", Home{}); err == nil || !strings.Contains(err.Error(), "홈 디렉터리") {
		t.Errorf("~/gpuop with no home: %v", err)
	}
}

func TestCurrentHomeIsHOME(t *testing.T) {
	t.Setenv("HOME", "/home/learner/")
	if h := CurrentHome(); h.Dir != "/home/learner" {
		t.Errorf("HOME=/home/learner/: %q", h.Dir)
	}
	t.Setenv("HOME", "relative")
	if h := CurrentHome(); h.Dir == "relative" {
		t.Error("a relative HOME was taken")
	}
}

func TestExpandAndShort(t *testing.T) {
	h := Home{"/home/learner"}
	for in, want := range map[string]string{"~/gpuop": "/home/learner/gpuop", "~": "/home/learner", "/srv/x/../lab": "/srv/lab"} {
		if got, err := h.Expand(in); err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := (Home{}).Expand("~/gpuop"); err == nil {
		t.Error("~/gpuop expanded with no home")
	}
	for in, want := range map[string]string{"/home/learner/gpuop": "~/gpuop", "/home/learner": "~", "/home/learner2/x": "/home/learner2/x", "/srv/lab": "/srv/lab"} {
		if got := h.Short(in); got != want {
			t.Errorf("Short(%q) = %q, want %q", in, got, want)
		}
	}
}

// --root, then $LABMATE_ROOT, then the settings file, then the lab's
// default made the learner's own; each says where it came from.
func TestChoosePrecedence(t *testing.T) {
	lab := &content.Lab{ID: "gpu-incident", DefaultRoot: "/root/gpuop"}
	h := Home{"/home/learner"}
	for _, c := range []struct {
		name string
		n    Named
		path string
		from Source
	}{
		{"nothing named", Named{}, "/home/learner/gpuop", FromHome},
		{"config", Named{Config: "~/labs/gpu"}, "/home/learner/labs/gpu", FromConfig},
		{"env over config", Named{Env: "/srv/env", Config: "~/labs/gpu"}, "/srv/env", FromEnv},
		{"flag over all", Named{Flag: "/srv/flag", Env: "/srv/env", Config: "~/labs/gpu"}, "/srv/flag", FromFlag},
		{"flag with ~ unexpanded", Named{Flag: "~/mine"}, "/home/learner/mine", FromFlag},
	} {
		r, err := Choose(lab, c.n, h)
		if err != nil || r.Path != c.path || r.From != c.from || r.Default != "/home/learner/gpuop" || r.Lab != "gpu-incident" {
			t.Errorf("%s: %+v, %v; want %s from %s", c.name, r, err, c.path, c.from)
		}
	}
	r, err := Choose(&content.Lab{ID: "kit", DefaultRoot: "/tmp/kit-demo"}, Named{}, h)
	if err != nil || r.Path != "/tmp/kit-demo" || r.From != FromLab {
		t.Errorf("a default outside any home: %+v, %v", r, err)
	}
}

// What Look observes, as any user can make it happen.
func TestLook(t *testing.T) {
	dir := t.TempDir()
	h := Home{dir}
	ready := filepath.Join(dir, "ready")
	os.Mkdir(ready, 0o755)
	os.WriteFile(filepath.Join(ready, "a"), nil, 0o644)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	loop := filepath.Join(dir, "loop")
	os.Symlink(loop, loop)

	p := Look(Root{Path: ready, Home: h})
	if p.State != Ready || p.Entries != 1 || !p.Own || p.Note() != "" || p.Fixes() != nil || p.Say() != "" {
		t.Errorf("ready: %+v %q", p, p.Fixes())
	}
	missing := filepath.Join(dir, "new", "gpuop")
	p = Look(Root{Path: missing, Home: h})
	if p.State != Missing || !p.CanMake || p.Parent != dir {
		t.Errorf("missing: %+v", p)
	}
	if n := p.Note(); !strings.Contains(n, "~/new/gpuop") || !strings.Contains(n, "아직 없는") {
		t.Errorf("missing note %q", n)
	}
	if f := p.Fixes(); !slices.Equal(f, []string{"mkdir -p ~/new/gpuop"}) {
		t.Errorf("missing fixes %q", f)
	}
	if made, err := p.Make(); err != nil || !made {
		t.Fatalf("Make: %v, %v", made, err)
	}
	if made, err := p.Make(); err != nil || made {
		t.Errorf("Make again: %v, %v (it was there)", made, err)
	}
	if q := Look(p.Root); q.State != Ready || q.Entries != 0 {
		t.Errorf("made: %+v (only the directory, nothing in it)", q)
	}

	p = Look(Root{Path: file, Home: h, From: FromFlag, Default: ready})
	if p.State != NotDir || !strings.Contains(p.Note(), "디렉터리가 아닌") {
		t.Errorf("file: %+v %q", p, p.Note())
	}
	if f := strings.Join(p.Fixes(), "\n"); !strings.Contains(f, "labmate --root ~/ready") {
		t.Errorf("file fixes %q", f)
	}
	under := filepath.Join(file, "lab")
	if _, err := Look(Root{Path: under}).Make(); err == nil || !strings.Contains(err.Error(), "만들지 못했습니다") {
		t.Errorf("a root under a file made: %v", err)
	}

	p = Look(Root{Path: loop, Home: h, From: FromEnv, Default: ready})
	if p.State != Unreadable || !strings.Contains(p.Note(), "고리") {
		t.Errorf("loop: %+v %q", p, p.Note())
	}
	if f := strings.Join(p.Fixes(), "\n"); !strings.Contains(f, "export LABMATE_ROOT=~/ready") {
		t.Errorf("loop fixes %q", f)
	}
}

// A root the learner cannot use is fixed by naming another the way it
// was named, never a chmod of a directory that is not theirs; their own
// directory's mode is theirs to change.
func TestFixesNeverChmodAnotherUsersDirectory(t *testing.T) {
	home := t.TempDir()
	h := Home{home}
	def := filepath.Join(home, "gpuop")
	cfg := filepath.Join(home, ".config", "labmate", "config.toml")
	notMine := Root{Path: "/root/gpuop", Lab: "gpu-incident", Default: def, ConfigPath: cfg, Home: h}
	for _, c := range []struct {
		name string
		from Source
		p    Place
		want []string
	}{
		{"the lab's default", FromHome, Place{State: Unreadable, Err: syscall.EACCES},
			[]string{"labmate --root ~/gpuop", `gpu-incident = "~/gpuop"`, "~/.config/labmate/config.toml"}},
		{"--root", FromFlag, Place{State: Unreadable, Err: syscall.EACCES}, []string{"labmate --root ~/gpuop"}},
		{"the environment", FromEnv, Place{State: Unwritable}, []string{"export LABMATE_ROOT=~/gpuop"}},
		{"the settings file", FromConfig, Place{State: Missing, Parent: "/root"}, []string{`gpu-incident = "~/gpuop"`}},
	} {
		p := c.p
		p.Root = notMine
		p.From = c.from
		fixes := strings.Join(p.Fixes(), "\n")
		for _, w := range c.want {
			if !strings.Contains(fixes, w) {
				t.Errorf("%s: fixes %q lack %q", c.name, fixes, w)
			}
		}
		for _, line := range p.Fixes() {
			if w := strings.Fields(line); strings.Contains(line, "chmod") || len(w) > 0 && w[0] == "sudo" {
				t.Errorf("%s: fix %q changes someone else's directory", c.name, line)
			}
		}
		if say := p.Say(); !strings.Contains(say, p.Note()) || !strings.Contains(say, c.want[0]) {
			t.Errorf("%s: Say %q", c.name, say)
		}
	}
	mine := Place{Root: Root{Path: def, Home: h, From: FromHome, Default: def}, State: Unwritable, Blocker: def, Own: true}
	if f := mine.Fixes(); len(f) != 1 || !strings.HasPrefix(f[0], "chmod u+rwx ~/gpuop") {
		t.Errorf("the learner's own directory: %q", f)
	}
	closed := filepath.Join(home, "closed")
	mine = Place{Root: Root{Path: filepath.Join(closed, "gpuop"), Home: h, From: FromFlag, Default: def}, State: Unreadable,
		Err: &os.PathError{Op: "stat", Path: closed, Err: syscall.EACCES}, Blocker: closed, Own: true}
	if f := mine.Fixes(); len(f) != 1 || !strings.HasPrefix(f[0], "chmod u+rwx ~/closed") {
		t.Errorf("the learner's own closed directory on the way: %q", f)
	}
}

func TestWhyIsKorean(t *testing.T) {
	for _, err := range []error{syscall.EACCES, syscall.ELOOP, syscall.ENOTDIR, syscall.EROFS, syscall.ENOSPC, syscall.EIO, &os.PathError{Op: "stat", Path: "/x", Err: syscall.EPERM}} {
		w := Why(err)
		if w == "" || strings.Contains(w, "denied") || strings.Contains(w, "error") || strings.Contains(w, "root.why") {
			t.Errorf("Why(%v) = %q", err, w)
		}
	}
	if w := Why(syscall.EIO); !strings.Contains(w, "EIO") {
		t.Errorf("Why(EIO) = %q: names the errno", w)
	}
}
