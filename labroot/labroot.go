// Package labroot is where a lab's files go: the lab root in effect for
// this learner, what that directory is like now, what to tell the
// learner about it and, on their command, making it.
//
// The root in effect is, first found: --root, $LABMATE_ROOT, the
// settings file's [roots] entry for the lab, else the lab's default_root
// made the learner's own (Default). The labs come from the LabHub pod,
// where the learner is root and works in /root/gpuop; labmate now runs on
// laptops as an ordinary user, who cannot write there, so a default under
// /root is the learner's home instead (for root whose home is /root it
// stays /root/gpuop, word for word as the LabHub pages say).
//
// What the directory is like is observed (stat, a listing, access(2)),
// never guessed from its path; the advice for a root the learner cannot
// use never needs sudo and never changes a directory that is not theirs:
// it names another root the way this one was chosen.
package labroot

import (
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/labhub/labmate/content"
)

// EnvRoot names the environment variable that names the lab root like
// --root, for every lab.
const EnvRoot = "LABMATE_ROOT"

// Home is whose lab root it is: the learner's home directory, absolute
// and clean ("" when it cannot be known).
type Home struct{ Dir string }

// LabHub is the home of the LabHub pod's learner, root: the home the
// labs' pages were written in. A proof shows its pages and records its
// runs there, so what it checks in reads as the LabHub pages do.
var LabHub = Home{Dir: "/root"}

// CurrentHome is the home of the learner running labmate: $HOME when it
// is absolute, else the user database's entry (as os.UserHomeDir, with
// the database for a $HOME that is unset).
func CurrentHome() Home {
	if h := os.Getenv("HOME"); filepath.IsAbs(h) {
		return Home{Dir: filepath.Clean(h)}
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		return Home{Dir: filepath.Clean(u.HomeDir)}
	}
	return Home{}
}

// labHubHome is the LabHub pod's home as lab.toml spells it.
const labHubHome = "/root"

// Default is the lab root a lab declares (lab.toml's default_root) made
// the learner's own: "~" and "~/x" are under the learner's home; so is
// "/root/x", the LabHub pod's home (root whose home is /root keeps
// /root/x; any other learner, or root with another home, gets
// $HOME/x); any other path is kept as declared, made absolute. With no
// home known, "/root/x" stays and "~/x" is an error (Korean).
func Default(declared string, h Home) (string, error) {
	if rel, ok := underHome(declared); ok {
		if h.Dir == "" {
			if strings.HasPrefix(declared, "~") {
				return "", errors.New(content.Msg("root.no_home", "root", declared))
			}
			return filepath.Clean(declared), nil
		}
		return filepath.Join(h.Dir, rel), nil
	}
	return filepath.Abs(declared)
}

// underHome reports whether a declared root stands under a home ("~",
// "~/x", "/root", "/root/x") and what it is relative to it.
func underHome(p string) (rel string, ok bool) {
	for _, home := range []string{"~", labHubHome} {
		if p == home {
			return "", true
		}
		if rest, found := strings.CutPrefix(p, home+"/"); found {
			return rest, true
		}
	}
	return "", false
}

// Expand makes a root the learner named absolute: a leading "~/" is
// their home (a shell expands it in `--root ~/x`, not in `--root=~/x`,
// in quotes or in a settings file), a relative path is relative to the
// working directory.
func (h Home) Expand(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h.Dir == "" {
			return "", errors.New(content.Msg("root.no_home", "root", p))
		}
		return filepath.Join(h.Dir, strings.TrimPrefix(p[1:], "/")), nil
	}
	return filepath.Abs(p)
}

// Short is an absolute path as the learner would type it: under the
// home as ~/x, else as it is.
func (h Home) Short(p string) string {
	if h.Dir == "" || h.Dir == "/" {
		return p
	}
	if p == h.Dir {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, h.Dir+"/"); ok {
		return "~/" + rest
	}
	return p
}

// AtLabHub is the lab's default root as the LabHub pod's learner has it
// (/root/gpuop for "~/gpuop" or "/root/gpuop"): the root a proof shows
// its pages with and records its runs under, so what it writes reads
// the same whoever proves the lab.
func AtLabHub(declared string) string {
	if d, err := Default(declared, LabHub); err == nil {
		return d
	}
	return declared
}
