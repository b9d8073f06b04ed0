package labroot

import "github.com/labhub/labmate/content"

// Source says where the lab root in effect came from: what the advice
// for a root the learner cannot use changes.
type Source string

const (
	FromFlag   Source = "flag"   // --root
	FromEnv    Source = "env"    // $LABMATE_ROOT
	FromConfig Source = "config" // the settings file's [roots]
	FromLab    Source = "lab"    // the lab's default_root, as declared
	FromHome   Source = "home"   // the lab's default_root, under the learner's home
)

// Named is what the learner named for one lab's root.
type Named struct {
	Flag string // --root
	Env  string // $LABMATE_ROOT
	// Config is the settings file's [roots] entry for the lab, and
	// ConfigPath that file (named in advice even when it has no entry).
	Config, ConfigPath string
}

// Root is the lab root in effect and where it came from.
type Root struct {
	Path string // absolute
	From Source
	// Lab is the lab's ID, as the settings file's [roots] names it.
	Lab string
	// Default is where the lab's files go when nothing is named: the
	// lab's default root made the learner's own ("" when it cannot be
	// known).
	Default string
	// ConfigPath is the settings file ([roots]); "" when none is known.
	ConfigPath string
	Home       Home
}

// Choose is the lab root in effect for lab: --root, else $LABMATE_ROOT,
// else the settings file's [roots] entry for the lab, else the lab's
// default root made the learner's own (Default). The environment comes
// before the file as kubectl's KUBECONFIG does before ~/.kube/config: a
// setting of this shell before one of this account. Its error is Korean.
func Choose(lab *content.Lab, n Named, h Home) (Root, error) {
	r := Root{Lab: lab.ID, ConfigPath: n.ConfigPath, Home: h}
	def, defErr := Default(lab.DefaultRoot, h)
	if defErr == nil {
		r.Default = def
	}
	var (
		named string
		err   error
	)
	switch {
	case n.Flag != "":
		r.From, named = FromFlag, n.Flag
	case n.Env != "":
		r.From, named = FromEnv, n.Env
	case n.Config != "":
		r.From, named = FromConfig, n.Config
	default:
		if defErr != nil {
			return r, defErr
		}
		r.Path, r.From = def, FromLab
		if _, ok := underHome(lab.DefaultRoot); ok {
			r.From = FromHome
		}
		return r, nil
	}
	if r.Path, err = h.Expand(named); err != nil {
		return r, err
	}
	return r, nil
}
