package scriptprobe

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/labhub/labmate/observe"
)

// layout is one run's private directory:
//
//	base/run             the run directory, the only place the script may write
//	base/run/bin/<fake>  the fake command, first on PATH
//	base/run/script/     a private copy of the learner's script
//	base/run/home, tmp   HOME and TMPDIR
//	base/run/work        the working directory
//	base/run/fake-argv   what the fake was called with
//	base/run/trap-calls  what the trap commands were called as
//	base/root            the new root's mount point (namespaces)
//	base/layer           the spec's files and trap commands, mirroring the root (namespaces)
//
// in is the run directory as the script sees it: InsideRunDir in the
// namespaces sandbox, the host path otherwise.
type layout struct {
	base, run, root, layer string
	in                     string
}

func newLayout(base string, mode SandboxMode) (layout, error) {
	l := layout{base: base, run: filepath.Join(base, "run"), in: filepath.Join(base, "run")}
	dirs := []string{l.run}
	for _, d := range []string{"bin", "script", "home", "tmp", "work"} {
		dirs = append(dirs, filepath.Join(l.run, d))
	}
	if mode == SandboxNamespaces {
		l.root, l.layer, l.in = filepath.Join(base, "root"), filepath.Join(base, "layer"), InsideRunDir
		dirs = append(dirs, l.root, l.layer)
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil {
			return l, err
		}
	}
	return l, nil
}

// host is a run-directory path as labmate sees it; inside as the script does.
func (l layout) host(name string) string   { return filepath.Join(l.run, name) }
func (l layout) inside(name string) string { return filepath.Join(l.in, name) }

// trapCommand is the stand-in at one of the spec's Commands: it records
// the path it was called by, then acts as the fake.
func (l layout) trapCommand(fake string) string {
	return "#!/bin/sh\n" +
		"# labmate: a trap command, for one probe run.\n" +
		"printf '%s\\000' \"$0\" >> " + shellQuote(l.inside("trap-calls")) + "\n" +
		"exec " + shellQuote(l.inside("bin/"+fake)) + " \"$@\"\n"
}

// writeLayer fills the layer with the spec's files and trap commands and
// returns the host paths of the watched files by their inside paths.
// Places the host reaches through a symlink (/bin -> usr/bin) are
// written once, at the resolved place.
func (l layout) writeLayer(s observe.SandboxSpec, fake string) (map[string]string, error) {
	watched := map[string]string{}
	put := func(inside string, data []byte, perm fs.FileMode) (string, error) {
		host := filepath.Join(l.layer, resolveHost(inside))
		if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
			return "", err
		}
		return host, writeFile(host, data, perm)
	}
	for _, f := range s.Files {
		perm := f.Mode.Perm()
		if perm == 0 {
			perm = 0o644
		}
		host, err := put(f.Path, []byte(f.Content), perm)
		if err != nil {
			return nil, err
		}
		if f.Watch {
			watched[f.Path] = host
		}
	}
	for _, c := range s.Commands {
		if _, err := put(c, []byte(l.trapCommand(fake)), 0o755); err != nil {
			return nil, err
		}
	}
	// Directories between the layer's root and its files must be
	// searchable by the script's user.
	return watched, filepath.WalkDir(l.layer, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return err
	})
}

// resolveHost resolves the symlinks of the part of p the host has.
func resolveHost(p string) string {
	rest := ""
	for d := p; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		if d == "/" {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}

// readNulList reads a NUL-separated log, each entry once, in order.
func readNulList(name string) []string {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, strings.ToValidUTF8(s, "\uFFFD"))
		}
	}
	return out
}
