package cluster

import (
	"bufio"
	"bytes"
	"go/version"
	"strings"
)

// Where upstream publishes its own release builds of the binaries the
// recipe builds, at the versions above: one table, so that a version bump
// changes the build and the download together. labmate's sandbox/prebuilt
// downloads these on Linux, where upstream ships every one of them, and
// checks each file against the digest labmate carries for it
// (digests.txt beside this file, Carried): never against a checksum
// served by the same place as the file, which catches a broken download
// but not a changed one. `go run ./hack/cluster/refresh` writes
// digests.txt from upstream's own published checksums when the versions
// change; where a digest could not be read, its line says why, and
// `refresh -check` (the release check) refuses a release.
//
// Layouts, as upstream publishes them (and as kwokctl v0.8.0's binary
// runtime downloads them: pkg/config/vars.go, pkg/consts/consts.go):
//
//	dl.k8s.io   /release/<v>/bin/<os>/<arch>/<name>, with <name>.sha256
//	            beside it (the bare hex digest)
//	etcd        github.com/etcd-io/etcd/releases/download/<v>/
//	            etcd-<v>-<os>-<arch>.tar.gz (etcd under etcd-<v>-<os>-<arch>/),
//	            with SHA256SUMS (sha256sum's lines) in the same release;
//	            etcd's workflow verify-released-assets.yaml runs
//	            `sha256sum -c SHA256SUMS` on every release
//	kwok        github.com/kubernetes-sigs/kwok/releases/download/<v>/
//	            kwok-<os>-<arch> and kwokctl-<os>-<arch>; kwok's release
//	            (v0.8.0: .github/workflows/releases.yaml, `make cross-build`,
//	            hack/releases.sh) uploads the binaries with `gh release
//	            upload` and no checksum file
//
// On macOS upstream publishes no kube-apiserver, kube-controller-manager
// or kube-scheduler (dl.k8s.io has only the client binaries there), so
// the table covers linux/amd64 and linux/arm64; elsewhere the source
// build is the way.

// Download is one file upstream publishes for one platform, and the
// binaries of the bin dir it yields.
type Download struct {
	// Binaries are the bin dir's binaries this file gives: one, the file
	// itself, or (a tarball) the members named in Members.
	Binaries []string
	// Component and Version: "kubernetes" v1.34.12, "etcd" v3.6.4, "kwok" v0.8.0.
	Component, Version string
	// URL is upstream's URL of the file.
	URL string
	// Members maps each of Binaries to its path inside the tarball; nil
	// for a bare binary.
	Members map[string]string
	// Checksum is upstream's own checksum file for the file, where it
	// publishes one: what the maintainer's refresh (cmd refresh) checks
	// the file against, and what a download from upstream over https
	// falls back to where labmate carries no digest.
	Checksum Checksum
	// Carried is the file's digest labmate carries (digests.txt); its
	// SHA256 is empty where none could be read, and Unread says why.
	Carried Digest
	// MemberDigests are the carried digests of the binaries inside a
	// tarball, by binary (what a bundle holds of etcd); nil for a bare
	// binary.
	MemberDigests map[string]Digest
}

// Digest is what labmate carries of one file: its sha256 and size, and
// where they were read. An empty SHA256 means none could be read, and
// Unread says why.
type Digest struct {
	SHA256 string
	Size   int64 // 0 where unknown
	Source string
	Unread string
}

// Name is the file's own name, the last element of its URL.
func (d Download) Name() string { return d.URL[strings.LastIndexByte(d.URL, '/')+1:] }

// Checksum is upstream's checksum file for a file: URL, and List when it
// lists several files as sha256sum does (etcd's SHA256SUMS) rather than
// holding one bare digest (dl.k8s.io's .sha256). Empty where upstream
// publishes none (kwok).
type Checksum struct {
	URL  string
	List bool
}

// Platforms are the GOOS/GOARCH pairs upstream ships every binary for.
var Platforms = []string{"linux/amd64", "linux/arm64"}

// Downloads returns what to download for goos/goarch, in the order of a
// learner's wait (the largest first, so the time left settles early),
// each with the digest labmate carries for it; false where upstream does
// not ship every binary (see Platforms).
func Downloads(goos, goarch string) ([]Download, bool) {
	platform := goos + "/" + goarch
	supported := false
	for _, p := range Platforms {
		supported = supported || p == platform
	}
	if !supported {
		return nil, false
	}
	var out []Download
	k8s := "https://dl.k8s.io/release/" + K8sVersion + "/bin/" + goos + "/" + goarch + "/"
	for _, name := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"} {
		out = append(out, Download{
			Binaries: []string{name}, Component: "kubernetes", Version: K8sVersion,
			URL:      k8s + name,
			Checksum: Checksum{URL: k8s + name + ".sha256"},
		})
	}
	etcdRel := "https://github.com/etcd-io/etcd/releases/download/" + EtcdVersion + "/"
	etcdDir := "etcd-" + EtcdVersion + "-" + goos + "-" + goarch
	out = append(out, Download{
		Binaries: []string{"etcd"}, Component: "etcd", Version: EtcdVersion,
		URL:      etcdRel + etcdDir + ".tar.gz",
		Members:  map[string]string{"etcd": etcdDir + "/etcd"},
		Checksum: Checksum{URL: etcdRel + "SHA256SUMS", List: true},
	})
	kwokRel := "https://github.com/kubernetes-sigs/kwok/releases/download/" + KwokVersion + "/"
	for _, name := range []string{"kwok", "kwokctl"} {
		out = append(out, Download{
			Binaries: []string{name}, Component: "kwok", Version: KwokVersion,
			URL: kwokRel + name + "-" + goos + "-" + goarch,
		})
	}
	carried := Carried()
	for i, d := range out {
		out[i].Carried = carried[d.URL]
		for b, member := range d.Members {
			if out[i].MemberDigests == nil {
				out[i].MemberDigests = map[string]Digest{}
			}
			out[i].MemberDigests[b] = carried[d.URL+"#"+member]
		}
	}
	return out, true
}

// kwokGoVersion is the go directive of kwok's go.mod at KwokVersion
// (v0.8.0: "go 1.26.0"): the source build's `go install` of kwok needs
// that Go at least, with GOTOOLCHAIN=local.
const kwokGoVersion = "1.26.0"

// GoVersion is the oldest Go the source build works with: the newer of
// the recipe module's go directive and kwok's.
func GoVersion() string {
	need := kwokGoVersion
	for _, m := range Modules() {
		sc := bufio.NewScanner(bytes.NewReader(m.Files["go.mod"]))
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "go "); ok && version.Compare("go"+need, "go"+strings.TrimSpace(v)) < 0 {
				need = strings.TrimSpace(v)
			}
		}
	}
	return need
}
