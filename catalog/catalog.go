// Package catalog is every lab labmate can open, the embedded ones and
// the ones installed with labstore, and the one grammar that names them
// (--lab, `lab verify ID|DIR`, `class init --lab`, `class lab push`,
// shell completion): ID is the embedded lab of that ID, else the
// installed one; ID@embedded and ID@installed say which; ID@VERSION is
// that installed version; a directory is a lab read from disk. Resolve
// decides which lab a command works on when none is named.
package catalog

import (
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labstore"
)

// Which copy of a lab a reference names after its ID: "ID@embedded",
// "ID@installed", or "ID@VERSION" (an installed version).
const (
	AtEmbedded  = "embedded"
	AtInstalled = "installed"
)

// Lab is a lab a reference can name: Ref is what --lab takes to open it,
// Text its text, Installed its record when it is an installed lab.
type Lab struct {
	Ref       string
	Text      *content.Lab
	Installed *labstore.Installed
}

// List is the labs to choose among: every embedded lab that loads, then
// the current version of every installed lab that loads. An installed
// lab with an embedded lab's ID is named ID@installed: the embedded one
// keeps the plain ID, for it is the one built and proven with labmate
// (Go checks and all) and must not be replaced by a copy from elsewhere
// without the learner saying so. A store that cannot be read hides every
// installed lab: unread says so in Korean ("" when it was read).
func List() (out []Lab, unread string) {
	for _, id := range content.IDs() {
		if l, err := content.Load(id); err == nil {
			out = append(out, Lab{Ref: id, Text: l})
		}
	}
	all, err := labstore.List()
	if err != nil {
		unread = content.Msg("cli.store_unreadable", "err", err)
	}
	for _, in := range all {
		if !in.Current {
			continue
		}
		l, err := content.LoadDir(in.Dir)
		if err != nil {
			continue
		}
		out = append(out, Lab{Ref: InstalledRef(in), Text: l, Installed: &in})
	}
	return out, unread
}

// InstalledRef is what --lab takes to open an installed lab: its ID, or
// ID@installed when an embedded lab has that ID; ID@VERSION for a
// version that is not the current one.
func InstalledRef(in labstore.Installed) string {
	switch {
	case !in.Current:
		return in.ID + "@" + in.Version
	case in.Shadowed:
		return in.ID + "@" + AtInstalled
	}
	return in.ID
}

// StoreRef is the store's name of what a reference names (lab remove
// takes ID@installed as --lab spells it).
func StoreRef(ref string) string { return strings.TrimSuffix(ref, "@"+AtInstalled) }

// Source is where the lab a reference names comes from: an embedded
// lab's ID, or a directory (one named, or an installed lab's).
type Source struct {
	Embedded string
	Dir      string
	// Installed is the installed lab's record (nil for the others).
	Installed *labstore.Installed
}

// Locate finds the lab a reference or a directory names, opening
// nothing. A reference that names nothing is refused in Korean with the
// labs there are.
func Locate(ref string) (Source, error) {
	if isDir(ref) {
		return Source{Dir: ref}, nil
	}
	return locate(ref, nil)
}

// locate is Locate for a reference; labs are the ones to name in a
// refusal (nil: List's).
func locate(ref string, labs []Lab) (Source, error) {
	id, which, _ := strings.Cut(ref, "@")
	embedded := slices.Contains(content.IDs(), id)
	switch {
	case which == AtEmbedded || which == "" && embedded:
		return Source{Embedded: id}, nil
	case which == AtInstalled:
		ref = id
	}
	in, err := labstore.Find(ref)
	if err != nil {
		if which != "" {
			return Source{}, err
		}
		if labs == nil {
			labs, _ = List()
		}
		refs := make([]string, len(labs))
		for i, o := range labs {
			refs[i] = o.Ref
		}
		return Source{}, errors.New(content.Msg("content.no_lab", "lab", ref, "labs", strings.Join(refs, ", ")))
	}
	return Source{Dir: in.Dir, Installed: &in}, nil
}

// Open compiles the lab a reference names among labs (List's). An
// installed lab runs its declarative checks only.
func Open(ref string, labs []Lab) (*labkit.Lab, error) {
	src, err := locate(ref, labs)
	if err != nil {
		return nil, err
	}
	if src.Embedded != "" {
		return labkit.Open(src.Embedded)
	}
	return src.Installed.Open()
}

// OpenDir compiles the lab in dir (--lab-dir, `lab verify DIR`); the
// error says in Korean which lab could not be read.
func OpenDir(dir string) (*labkit.Lab, error) {
	l, err := labkit.OpenDir(dir)
	if err != nil {
		return nil, errors.New(content.Msg("cli.lab_missing", "lab", dir, "err", err))
	}
	return l, nil
}

// Arg reads a command's lab argument (`lab verify`, `lab rbac`): a
// directory (an existing one, or any path with a separator) is lab-dir,
// anything else a reference.
func Arg(arg string) (ref, dir string) {
	if isDir(arg) || strings.ContainsRune(arg, os.PathSeparator) {
		return "", arg
	}
	return arg, ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
