// Package dirs is where labmate's sandbox keeps things, found one way
// everywhere (package sandbox, the kubeconfig loader, the tests' cluster
// slots, the lab proofs): the home directory is asked for when called,
// not at start-up.
package dirs

import (
	"os"
	"path/filepath"
)

// Cache is ${XDG_CACHE_HOME:-$HOME/.cache} (a temp directory when there is
// no home).
func Cache() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return d
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".cache")
	}
	return filepath.Join(os.TempDir(), "labmate-cache")
}

// KwokWorkdir is where kwokctl keeps its clusters: $KWOK_WORKDIR, else
// ~/.kwok (a temp directory when there is no home).
func KwokWorkdir() string {
	if d := os.Getenv("KWOK_WORKDIR"); d != "" {
		return d
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".kwok")
	}
	return filepath.Join(os.TempDir(), "kwok")
}

// KwokKubeconfig is the kubeconfig kwokctl writes for the cluster name.
func KwokKubeconfig(name string) string {
	return filepath.Join(KwokWorkdir(), "clusters", name, "kubeconfig.yaml")
}
