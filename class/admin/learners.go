package admin

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
