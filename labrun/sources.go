package labrun

import (
	"errors"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
	"github.com/labhub/labmate/observe/files"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// addSources wires the file source, the script prober and the cluster
// source for a live run.
func (r *Run) addSources(o Options) error {
	r.files = files.New(files.Options{Root: o.Root, Paths: r.engine.Files(), Poll: o.Poll})
	if fs := r.files.Polling(); fs != "" && !o.Poll {
		r.warnings = append(r.warnings, content.Msg("cli.polling", "fs", fs))
	}
	r.sources = append(r.sources, r.files)
	if probes := r.engine.Probes(); len(probes) > 0 {
		r.sources = append(r.sources, scriptprobe.New(o.Root, probes, scriptprobe.Options{}))
	}
	src, warning, err := clusterSource(o.Scope, o.Cluster, o.Lenient)
	if err != nil {
		return err
	}
	if warning != "" {
		r.warnings = append(r.warnings, warning)
	}
	if src != nil {
		r.sources = append(r.sources, src)
	}
	return nil
}

// clusterSource is the cluster source for the lab's scope on the
// target (nil: none): a static one saying the cluster is off with
// --no-cluster; none for a lab that watches nothing there; the
// connection's, or, with no kubeconfig anywhere, one that reports the
// cluster off. A kubeconfig that cannot be used is an error, or with
// lenient a warning and no cluster source.
func clusterSource(scope cluster.Scope, t kube.Target, lenient bool) (src observe.Source, warning string, err error) {
	switch t.Reach() {
	case kube.Off:
		return observe.Static{SourceName: cluster.SourceName, Obs: []observe.Observation{
			{Cluster: &observe.ClusterObs{State: observe.ClusterOff, Err: observe.ClusterDisabled}},
		}}, "", nil
	case kube.Unusable:
		if scope.Empty() {
			return nil, "", nil
		}
		if lenient {
			return nil, t.Problem(), nil
		}
		return nil, "", errors.New(t.Problem())
	}
	if scope.Empty() {
		return nil, "", nil
	}
	c, err := cluster.New(t.Conn, cluster.Options{Scope: scope})
	if err != nil {
		return nil, "", errors.New(kube.CannotCheck(err))
	}
	return c, "", nil
}
