package classlab

// The instructor's side of the class's lab: pack the lab a --lab names
// (class init --lab, class lab push) for the class to carry.

import (
	"errors"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labstore"
)

// PackRef packs the lab a reference names, for the class to carry: a
// directory, or a lab named as --lab names one (catalog.Locate). A
// built-in lab that needs labmate's Go code cannot travel: ship is
// false, and learners run their own labmate's copy, as before labs
// travelled.
func PackRef(ref string) (a class.LabArchive, ship bool, err error) {
	src, err := catalog.Locate(ref)
	if err != nil {
		return class.LabArchive{}, false, err
	}
	if src.Embedded == "" {
		return packDir(src.Dir)
	}
	l, err := content.Load(src.Embedded)
	if err != nil {
		return class.LabArchive{}, false, err
	}
	return packEmbedded(l)
}

// packDir packs a lab directory with one load of the lab, after its
// special files are refused (labstore.PackLab): a FIFO named lab.toml is
// never opened.
func packDir(dir string) (class.LabArchive, bool, error) {
	b, kit, err := labstore.PackLab(dir)
	if err != nil {
		return class.LabArchive{}, false, err
	}
	return class.NewLabArchive(kit.ID(), kit.Text.Version, b), true, nil
}

// packEmbedded packs a built-in lab (labstore.PackEmbedded: the bytes
// its directory packs to); one that needs Go does not travel.
func packEmbedded(l *content.Lab) (class.LabArchive, bool, error) {
	b, err := labstore.PackEmbedded(l.ID)
	var r *labstore.Refusal
	if errors.As(err, &r) && r.Reason == labstore.GoChecks {
		return class.LabArchive{ID: l.ID, Version: l.Version}, false, nil
	}
	if err != nil {
		return class.LabArchive{}, false, err
	}
	return class.NewLabArchive(l.ID, l.Version, b), true, nil
}

// Labs reads `class init --lab`: none is every built-in lab, none
// travelling; one is packed (PackRef) and travels with the class when it
// can (ship is nil when it cannot: a built-in lab with Go of its own);
// several must each be built in, and none travels. ids are the labs'
// IDs. Its errors are Korean.
func Labs(refs []string) (ids []string, ship *class.LabArchive, err error) {
	switch len(refs) {
	case 0:
		return content.IDs(), nil, nil
	case 1:
		a, travels, err := PackRef(refs[0])
		if err != nil {
			return nil, nil, refuse("class.cli.lab_refused", "lab", refs[0], "err", err)
		}
		if len(a.Bytes) > class.MaxLabBytes {
			return nil, nil, class.LabTooBig{Size: len(a.Bytes)}
		}
		if travels {
			ship = &a
		}
		return []string{a.ID}, ship, nil
	}
	for _, lab := range refs {
		if _, err := content.Load(lab); err != nil {
			return nil, nil, refuse("class.cli.labs_builtin", "lab", lab)
		}
	}
	return refs, nil, nil
}

func refuse(key string, kv ...any) error { return errors.New(content.Msg(key, kv...)) }
