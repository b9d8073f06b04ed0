// Package cluster holds the recipe that builds the sandbox's cluster
// binaries from the Go module proxy, embedded into labmate so that
// `labmate sandbox build` works from a release archive alone:
//
//	_k8s   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
//	       (k8s.io/kubernetes with every staging module replaced by its
//	       release) and etcd (go.etcd.io/etcd/server/v3 etcdmain), one
//	       module built by one `go build`, so that what the API server and
//	       etcd share (etcd's client and API, gRPC, protobuf, OpenTelemetry,
//	       Prometheus) compiles once
//
// kwok and kwokctl are not in it: kwok v0.8.0 requires k8s.io modules
// v0.36, which k8s.io/kubernetes v1.34 does not build with; `go install`
// builds them with their own go.mod.
//
// The module's go.mod is stored as go.mod.in: a go.mod would make it a
// module of its own, which go:embed cannot reach, and the leading
// underscore keeps the root module's ./... out of it. To work on the
// recipe by hand, copy it somewhere, rename go.mod.in to go.mod and build
// there; `labmate sandbox build` does exactly that in a temporary
// directory.
package cluster

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Versions built by the recipe; keep them in sync with the go.mod.in files.
const (
	K8sVersion  = "v1.34.12"
	EtcdVersion = "v3.6.4"
	KwokVersion = "v0.8.0"
)

//go:embed _k8s
var files embed.FS

// Module is one recipe module: the directory it unpacks to and its files.
type Module struct {
	Dir   string            // "k8s"
	Files map[string][]byte // path inside Dir -> content, go.mod under its real name
}

// Modules returns the recipe modules with their files as a build needs
// them (go.mod.in renamed to go.mod).
func Modules() []Module {
	var out []Module
	for _, dir := range []string{"k8s"} {
		m := Module{Dir: dir, Files: map[string][]byte{}}
		root := "_" + dir
		_ = fs.WalkDir(files, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := files.ReadFile(p)
			if err != nil {
				return err
			}
			m.Files[realName(strings.TrimPrefix(p, root+"/"))] = data
			return nil
		})
		out = append(out, m)
	}
	return out
}

func realName(p string) string {
	if path.Base(p) == "go.mod.in" {
		return path.Join(path.Dir(p), "go.mod")
	}
	return p
}

// Hash identifies the recipe: sha256 over "sha256  hack/cluster/<dir>/<file>"
// lines sorted by path, the way `sha256sum` lists them (so the stamp of a
// cache built by the former shell recipe stays valid).
func Hash() string {
	type entry struct{ path, sum string }
	var entries []entry
	for _, m := range Modules() {
		for p, data := range m.Files {
			sum := sha256.Sum256(data)
			entries = append(entries, entry{"hack/cluster/" + m.Dir + "/" + p, hex.EncodeToString(sum[:])})
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.sum + "  " + e.path + "\n")
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}
