// Package dirs is where labmate keeps things, found one way everywhere:
// the XDG base directories (the learner's state, the installed labs, the
// TUI's settings, the cache of the cluster's binaries) and kwok's work
// directory. The home directory is asked for when called, not at
// start-up, so a test's or a child's environment decides.
package dirs

import (
	"errors"
	"os"
	"path/filepath"
)

// Base is the XDG base directory the variable env names
// (XDG_STATE_HOME, ...) when it holds an absolute path (the XDG spec
// ignores a relative one), else ~/fallback. Its error says there is no
// home directory to fall back on.
func Base(env, fallback string) (string, error) {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if home == "" {
		return "", errors.New("dirs: no home directory")
	}
	return filepath.Join(home, fallback), nil
}

// labmate is labmate's directory under the base directory env names.
func labmate(env, fallback string) (string, error) {
	d, err := Base(env, fallback)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "labmate"), nil
}

// State is $XDG_STATE_HOME/labmate (~/.local/state/labmate): the
// learner's progress, the lab chosen per root, stderr.log.
func State() (string, error) { return labmate("XDG_STATE_HOME", filepath.Join(".local", "state")) }

// Data is $XDG_DATA_HOME/labmate (~/.local/share/labmate): the
// installed labs.
func Data() (string, error) { return labmate("XDG_DATA_HOME", filepath.Join(".local", "share")) }

// Config is $XDG_CONFIG_HOME/labmate (~/.config/labmate): the TUI's
// settings.
func Config() (string, error) { return labmate("XDG_CONFIG_HOME", ".config") }

// Cache is the XDG cache directory, $XDG_CACHE_HOME (~/.cache; a temp
// directory when there is no home), under which labmate keeps the
// cluster's binaries and the sandbox's logs and locks.
func Cache() string {
	d, err := Base("XDG_CACHE_HOME", ".cache")
	if err != nil {
		return filepath.Join(os.TempDir(), "labmate-cache")
	}
	return d
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
