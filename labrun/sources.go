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

// ClusterMode is how a run reaches the lab cluster.
type ClusterMode int

const (
	// ClusterAuto watches what the lab declares through the run's
	// connection (Cluster.Conn); a lab that declares nothing gets no
	// cluster source.
	ClusterAuto ClusterMode = iota
	// ClusterOff is the learner turning the cluster off (--no-cluster):
	// the cluster steps say so instead of guessing why there is none.
	ClusterOff
	// ClusterNone is no cluster source at all (a proof of file steps).
	ClusterNone
)

// Cluster says how a run reaches the lab cluster.
type Cluster struct {
	Mode ClusterMode
	// Conn reaches the lab cluster (ClusterAuto); nil is no kubeconfig
	// at all, which the cluster source reports as a cluster that is off.
	Conn *kube.Conn
}

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
	src, err := clusterSource(o.Scope, o.Cluster)
	if err != nil {
		return err
	}
	if src != nil {
		r.sources = append(r.sources, src)
	}
	return nil
}

// clusterSource is the cluster source for the lab's scope, or nil.
func clusterSource(scope cluster.Scope, c Cluster) (observe.Source, error) {
	switch c.Mode {
	case ClusterNone:
		return nil, nil
	case ClusterOff:
		return observe.Static{SourceName: cluster.SourceName, Obs: []observe.Observation{
			{Cluster: &observe.ClusterObs{State: observe.ClusterOff, Err: observe.ClusterDisabled}},
		}}, nil
	}
	if scope.Empty() {
		return nil, nil
	}
	src, err := cluster.New(c.Conn, cluster.Options{Scope: scope})
	if err != nil {
		return nil, errors.New(content.Msg("cli.kubeconfig_bad", "err", kube.Explain(err)))
	}
	return src, nil
}
