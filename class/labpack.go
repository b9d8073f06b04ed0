package class

// The instructor's side of the class's lab: pack the lab a --lab names
// (class init --lab, class lab push) for the class to carry.

import (
	"errors"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labstore"
)

// PackRef packs the lab a reference names, for the class to carry: a
// directory, or a lab named as --lab names one (catalog.Locate). A
// built-in lab that needs labmate's Go code cannot travel: ship is
// false, and learners run their own labmate's copy, as before labs
// travelled.
func PackRef(ref string) (a LabArchive, ship bool, err error) {
	src, err := catalog.Locate(ref)
	if err != nil {
		return LabArchive{}, false, err
	}
	if src.Embedded == "" {
		return packDir(src.Dir)
	}
	l, err := content.Load(src.Embedded)
	if err != nil {
		return LabArchive{}, false, err
	}
	return packEmbedded(l)
}

// packDir packs a lab directory with one load of the lab, after its
// special files are refused (labstore.PackLab): a FIFO named lab.toml is
// never opened.
func packDir(dir string) (LabArchive, bool, error) {
	b, kit, err := labstore.PackLab(dir)
	if err != nil {
		return LabArchive{}, false, err
	}
	return NewLabArchive(kit.ID(), kit.Text.Version, b), true, nil
}

// packEmbedded packs a built-in lab (labstore.PackEmbedded: the bytes
// its directory packs to); one that needs Go does not travel.
func packEmbedded(l *content.Lab) (LabArchive, bool, error) {
	b, err := labstore.PackEmbedded(l.ID)
	var r *labstore.Refusal
	if errors.As(err, &r) && r.Reason == labstore.GoChecks {
		return LabArchive{ID: l.ID, Version: l.Version}, false, nil
	}
	if err != nil {
		return LabArchive{}, false, err
	}
	return NewLabArchive(l.ID, l.Version, b), true, nil
}
