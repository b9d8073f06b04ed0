package main

import (
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/kubeerr"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// addSources adds the script prober and the cluster source next to the
// file watcher. A kubeconfig that exists but cannot be used is an
// environment error for scripts (strict) and a warning in the TUI, where
// the file steps keep working.
func (s *setup) addSources(c *common, strict bool) error {
	if probes := s.engine.Probes(); len(probes) > 0 {
		s.sources = append(s.sources, scriptprobe.New(s.root, probes, scriptprobe.Options{}))
	}
	if c.noCluster {
		// Say so, rather than leave the cluster steps guessing why
		// there is no cluster.
		s.sources = append(s.sources, observe.Static{SourceName: "cluster", Obs: []observe.Observation{
			{Cluster: &observe.ClusterObs{State: observe.ClusterOff, Err: observe.ClusterDisabled}},
		}})
		return nil
	}
	namespaces, nodes := s.lab.Cluster.Namespaces, s.lab.WatchedNodes()
	if len(namespaces) == 0 && len(nodes) == 0 {
		return nil
	}
	src, err := cluster.New(cluster.Options{
		Kubeconfig:   c.kubeconfig,
		Context:      c.kubeCtx,
		Namespaces:   namespaces,
		Nodes:        nodes,
		EventReasons: s.lab.Cluster.EventReasons,
	})
	if err != nil {
		msg := content.Msg("cli.kubeconfig_bad", "err", kubeerr.Explain(err))
		if strict {
			return envError{msg}
		}
		s.warnings = append(s.warnings, msg)
		return nil
	}
	s.sources = append(s.sources, src)
	return nil
}
