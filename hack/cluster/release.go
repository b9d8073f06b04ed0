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
// checks each file against the checksum upstream publishes beside it, or
// against a sha256 pinned here where upstream publishes none.
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
//	            upload` and no checksum file, so their sha256 is pinned below
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
	// Checksum is where the file's sha256 comes from.
	Checksum Checksum
}

// Name is the file's own name, the last element of its URL.
func (d Download) Name() string { return d.URL[strings.LastIndexByte(d.URL, '/')+1:] }

// Checksum says where a file's sha256 comes from: upstream's checksum
// file (URL; List when it lists several files as sha256sum does), or a
// digest pinned in this table (SHA256, and PinSource saying where it was
// read) where upstream publishes none.
type Checksum struct {
	URL       string
	List      bool
	SHA256    string
	PinSource string
}

// Platforms are the GOOS/GOARCH pairs upstream ships every binary for.
var Platforms = []string{"linux/amd64", "linux/arm64"}

// kwokPins are kwok's own release binaries' sha256 (kwok publishes none).
// Read from two packagers who download and check the same files, which
// agree on every value: Arch Linux's AUR package kwok-bin 0.8.0-1 (its
// PKGBUILD's sha256sums_x86_64 and sha256sums_aarch64) and a Nix
// expression "kwok-bin" 0.8.0 (fetchurl's SRI hashes, the same digests
// in base64).
var kwokPins = map[string]string{
	"kwok-linux-amd64":    "f5a4385a2ae1b9dd7f8acae18e002a75c0ebba124ae9d7259aa8dadb50711f46",
	"kwok-linux-arm64":    "628f7d277860f524a2a775c217adcc58828e7b59ab0933680315784f1b8b0e37",
	"kwokctl-linux-amd64": "d5743166c657283d6e827c7c4c20cacfd9009fd94830f06718ca7b2c7099461f",
	"kwokctl-linux-arm64": "5a642b27d3e975f36040d215640cd90fb4a63cb6fca0ad5865a61bcd9c81051b",
}

const kwokPinSource = "AUR kwok-bin 0.8.0-1 PKGBUILD and Nix kwok-bin 0.8.0 (agreeing)"

// Downloads returns what to download for goos/goarch, in the order of a
// learner's wait (the largest first, so the time left settles early);
// false where upstream does not ship every binary (see Platforms).
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
		file := name + "-" + goos + "-" + goarch
		out = append(out, Download{
			Binaries: []string{name}, Component: "kwok", Version: KwokVersion,
			URL:      kwokRel + file,
			Checksum: Checksum{SHA256: kwokPins[file], PinSource: kwokPinSource},
		})
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
