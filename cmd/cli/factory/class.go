package factory

import (
	"context"
	"slices"

	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/kube"
)

// The class for one command line: the instructor's connection, a
// learner's class kubeconfig, the class's lab a --class run opens.

func (f *Factory) Admin(kubeconfig string) (kube.Conn, error) {
	path, context := f.cluster.Kubeconfig, f.cluster.Context
	if kubeconfig != "" {
		path, context = kubeconfig, "" // its own current context
	}
	return f.inv.deps.Open(admin.Kubeconfig(path, context))
}

func (f *Factory) Learner(file string) (*learner.Learner, error) {
	if c, ok := f.inv.learners[file]; ok {
		return c.l, c.err
	}
	l, err := f.openLearner(file)
	f.inv.learners[file] = learnerConn{l, err}
	return l, err
}

func (f *Factory) openLearner(file string) (*learner.Learner, error) {
	conn, err := f.inv.deps.Open(learner.Kubeconfig(file))
	if err != nil {
		return nil, err
	}
	return learner.New(conn, file)
}

func (f *Factory) ForClass(ctx context.Context, file string) (cli.Factory, error) {
	if ref, dir := f.names(); file == "" || ref != "" || dir != "" {
		return f, nil
	}
	l, err := f.Learner(file)
	if err != nil {
		return f, nil
	}
	lab, note, err := classlab.Use(ctx, l.Requests(), l.Namespace)
	if err != nil {
		return nil, err
	}
	if lab == nil {
		return f, nil
	}
	g := f.of("", lab.Dir)
	g.classLab = lab
	g.notices = slices.Clone(f.notices)
	if note != "" {
		g.notices = append(g.notices, note)
	}
	return g, nil
}

func (f *Factory) ClassLabNotes(ctx context.Context, file string) <-chan classlab.LabNote {
	if f.classLab == nil {
		return nil
	}
	l, err := f.Learner(file)
	if err != nil {
		return nil
	}
	return classlab.WatchInstalled(ctx, l.Conn, l.Namespace, f.classLab)
}
