package class

import (
	"errors"
	"os"
	"strconv"

	"github.com/labhub/labmate/content"
)

// Learners reads `class init --learners`: a count (1 to 1000: learner-01,
// ...) or a file of names, one a line. Its errors are Korean.
func Learners(spec string) ([]string, error) {
	switch n, err := strconv.Atoi(spec); {
	case spec == "":
		return nil, refuse("class.cli.learners_missing")
	case err == nil:
		if n < 1 || n > 1000 {
			return nil, refuse("class.cli.learners_range", "n", n)
		}
		return LearnersFromCount(n), nil
	default:
		f, err := os.Open(spec)
		if err != nil {
			return nil, refuse("class.cli.learners_file", "path", spec, "err", err)
		}
		defer f.Close()
		names, err := ReadLearners(f)
		var bad InvalidName
		switch {
		case errors.As(err, &bad) && bad.Dup:
			return nil, refuse("class.cli.learner_dup", "path", spec, "line", bad.Line, "name", bad.Name)
		case errors.As(err, &bad):
			return nil, refuse("class.cli.learner_bad", "path", spec, "line", bad.Line, "name", bad.Name)
		case err != nil:
			return nil, refuse("class.cli.learners_file", "path", spec, "err", err)
		}
		return names, nil
	}
}

func refuse(key string, kv ...any) error { return errors.New(content.Msg(key, kv...)) }

// Labs reads `class init --lab`: none is every built-in lab, none
// travelling; one is packed (PackRef) and travels with the class when it
// can (ship is nil when it cannot: a built-in lab with Go of its own);
// several must each be built in, and none travels. ids are the labs'
// IDs. Its errors are Korean.
func Labs(refs []string) (ids []string, ship *LabArchive, err error) {
	switch len(refs) {
	case 0:
		return content.IDs(), nil, nil
	case 1:
		a, travels, err := PackRef(refs[0])
		if err != nil {
			return nil, nil, refuse("class.cli.lab_refused", "lab", refs[0], "err", err)
		}
		if len(a.Bytes) > MaxLabBytes {
			return nil, nil, LabTooBig{Size: len(a.Bytes)}
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
