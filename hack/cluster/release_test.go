package cluster

import (
	"regexp"
	"strings"
	"testing"
)

// The table names every binary the recipe builds exactly once for each
// platform, at the recipe's versions, each with a checksum source.
func TestDownloadsCoverEveryBinary(t *testing.T) {
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for _, p := range Platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		ds, ok := Downloads(goos, goarch)
		if !ok {
			t.Fatalf("%s: not supported", p)
		}
		seen := map[string]int{}
		for _, d := range ds {
			for _, b := range d.Binaries {
				seen[b]++
				if d.Members != nil && d.Members[b] == "" {
					t.Errorf("%s: %s has no member path in %s", p, b, d.Name())
				}
			}
			if !strings.Contains(d.URL, d.Version) || !strings.Contains(d.URL, goarch) {
				t.Errorf("%s: %s does not name its version %s and arch", p, d.URL, d.Version)
			}
			if d.Checksum.List && d.Checksum.URL == "" {
				t.Errorf("%s: %s lists its checksum in no file", p, d.Name())
			}
			if d.Carried.SHA256 != "" && !hex.MatchString(d.Carried.SHA256) {
				t.Errorf("%s: %s carries %q", p, d.Name(), d.Carried.SHA256)
			}
		}
		for _, b := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "etcd", "kwok", "kwokctl"} {
			if seen[b] != 1 {
				t.Errorf("%s: %s comes from %d downloads, want 1", p, b, seen[b])
			}
		}
	}
	if _, ok := Downloads("darwin", "arm64"); ok {
		t.Error("darwin/arm64 is supported, but dl.k8s.io ships no kube-apiserver for it")
	}
}

// The layouts are upstream's, letter for letter (see the table's comment).
func TestDownloadsUseUpstreamLayout(t *testing.T) {
	ds, _ := Downloads("linux", "arm64")
	want := map[string][2]string{
		"kube-apiserver": {"https://dl.k8s.io/release/" + K8sVersion + "/bin/linux/arm64/kube-apiserver",
			"https://dl.k8s.io/release/" + K8sVersion + "/bin/linux/arm64/kube-apiserver.sha256"},
		"etcd": {"https://github.com/etcd-io/etcd/releases/download/" + EtcdVersion + "/etcd-" + EtcdVersion + "-linux-arm64.tar.gz",
			"https://github.com/etcd-io/etcd/releases/download/" + EtcdVersion + "/SHA256SUMS"},
		"kwokctl": {"https://github.com/kubernetes-sigs/kwok/releases/download/" + KwokVersion + "/kwokctl-linux-arm64", ""},
	}
	for _, d := range ds {
		w, ok := want[d.Binaries[0]]
		if !ok {
			continue
		}
		if d.URL != w[0] || d.Checksum.URL != w[1] {
			t.Errorf("%s: %s (checksum %q), want %s (checksum %q)", d.Binaries[0], d.URL, d.Checksum.URL, w[0], w[1])
		}
	}
}

// The Go a source build needs is the newest go directive it meets: kwok
// v0.8.0's go.mod says 1.26.0, newer than the recipe's 1.25.0.
func TestGoVersion(t *testing.T) {
	if got := GoVersion(); got != "1.26.0" {
		t.Errorf("GoVersion = %q, want 1.26.0", got)
	}
}
