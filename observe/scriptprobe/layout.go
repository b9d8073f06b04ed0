package scriptprobe

import (
	"os"
	"path/filepath"
	"strings"
)

// layout is one run's private directory:
//
//	base/run             the run directory, the only place the script may write
//	base/run/bin/<fake>  the fake command, first on PATH
//	base/run/script/     a private copy of the learner's script
//	base/run/home, tmp   HOME and TMPDIR
//	base/run/work        the working directory
//	base/run/fake-argv   what the fake was called with
//	base/run/abs-calls   what the trap commands were called as
//	base/root            the new root's mount point (namespaces)
//	base/trap            the trap layers, mirroring the root (namespaces)
//
// in is the run directory as the script sees it: InsideRunDir in the
// namespaces sandbox, the host path otherwise.
type layout struct {
	base, run, root, trap string
	in                    string
}

func newLayout(base string, mode SandboxMode) (layout, error) {
	l := layout{base: base, run: filepath.Join(base, "run"), in: filepath.Join(base, "run")}
	dirs := []string{l.run}
	for _, d := range []string{"bin", "script", "home", "tmp", "work"} {
		dirs = append(dirs, filepath.Join(l.run, d))
	}
	if mode == SandboxNamespaces {
		l.root, l.trap, l.in = filepath.Join(base, "root"), filepath.Join(base, "trap"), InsideRunDir
		dirs = append(dirs, l.root, l.trap)
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

// trapCommand is the stand-in at containerd's absolute locations: it
// records the path it was called by, then acts as the fake.
func (l layout) trapCommand(fake string) string {
	return "#!/bin/sh\n" +
		"# labmate: a trap at an absolute location of containerd, for one probe run.\n" +
		"printf '%s\\000' \"$0\" >> " + shellQuote(l.inside("abs-calls")) + "\n" +
		"exec " + shellQuote(l.inside("bin/"+fake)) + " \"$@\"\n"
}

// trapConfig is what the trap at ConfigTrap holds: what was written (an
// nvidia runtime), never what was loaded, which is the lab's lesson.
const trapConfig = `# labmate: a trap. The lab's grader forbids reading this file:
# it is what was written, not what containerd loaded.
version = 2
imports = ["/etc/containerd/conf.d/*.toml"]

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
`

// writeTraps fills the trap tree and returns the host path of the
// config trap. Places the host reaches through a symlink (/bin -> usr/bin)
// are written once, at the resolved place.
func (l layout) writeTraps(fake string) (string, error) {
	cfg := filepath.Join(l.trap, resolveHost(filepath.Dir(ConfigTrap)), filepath.Base(ConfigTrap))
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		return "", err
	}
	if err := writeFile(cfg, []byte(trapConfig), 0o644); err != nil {
		return "", err
	}
	seen := map[string]bool{}
	for _, d := range TrapDirs {
		r := resolveHost(d)
		if seen[r] {
			continue
		}
		seen[r] = true
		dir := filepath.Join(l.trap, r)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := writeFile(filepath.Join(dir, fake), []byte(l.trapCommand(fake)), 0o755); err != nil {
			return "", err
		}
	}
	// Directories between the trap root and the traps must be
	// searchable by the script's user.
	return cfg, filepath.WalkDir(l.trap, func(p string, d os.DirEntry, err error) error {
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
