package sandbox

import "github.com/labhub/labmate/content"

// ForLab is opts for a sandbox of lab: its nodes, its start objects and
// its ID. The error says in Korean what of the lab cannot be set up.
func (opts Options) ForLab(lab *content.Lab) (Options, error) {
	var err error
	if opts.Nodes, err = NodesOf(lab); err != nil {
		return opts, err
	}
	if opts.Manifests, err = ManifestsOf(lab); err != nil {
		return opts, err
	}
	opts.Lab = lab.ID
	return opts, nil
}

// Ready says, in Korean, that the sandbox is up and how to reach it: its
// kubeconfig and context, and, when that kubeconfig is not the default
// one (the loader falls back to the default one only), how to use it.
func (opts Options) Ready() string {
	ready := "cli.sandbox.ready"
	if Kubeconfig(opts) != Kubeconfig(Options{}) {
		ready = "cli.sandbox.ready_named"
	}
	return content.Msg(ready, "kubeconfig", Kubeconfig(opts), "context", Context(opts))
}
