package catalog

import (
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labstore"
)

// Entry is one lab of `labmate lab list --json`, stable for tools.
type Entry struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Steps   int    `json:"steps"`
	Version string `json:"version"`
	// Source is embedded (built into labmate) or installed (lab install).
	Source string `json:"source"`
	// Lab is what --lab takes to open it.
	Lab string `json:"lab"`
	// For an installed lab: its archive's sha256 and where it came from.
	Sum  string `json:"sha256,omitempty"`
	From string `json:"from,omitempty"`
}

// Entry.Source's values.
const (
	SourceEmbedded  = "embedded"
	SourceInstalled = "installed"
)

// Shadowed reports whether the entry is an installed lab that --lab
// names ID@installed, an embedded lab having its ID.
func (e Entry) Shadowed() bool {
	return e.Source == SourceInstalled && e.Lab == e.ID+"@"+AtInstalled
}

// Entries are the embedded labs that compile, then every installed
// version of every installed lab; err is the store's, when it could not
// be read (the embedded labs are there all the same).
func Entries() ([]Entry, error) {
	entries := []Entry{}
	for _, l := range labkit.Installed() {
		entries = append(entries, Entry{ID: l.ID(), Title: l.Text.Title, Steps: len(l.Text.Steps),
			Version: l.Text.Version, Source: SourceEmbedded, Lab: l.ID()})
	}
	all, err := labstore.List()
	for _, in := range all {
		steps := 0
		if l, err := content.LoadDir(in.Dir); err == nil {
			steps = len(l.Steps)
		}
		entries = append(entries, Entry{ID: in.ID, Title: in.Title, Steps: steps, Version: in.Version,
			Source: SourceInstalled, Lab: InstalledRef(in), Sum: in.Sum, From: in.Source})
	}
	return entries, err
}
