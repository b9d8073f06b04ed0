package cluster

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Every file of the table, for every platform, and every binary inside a
// tarball, has its line in digests.txt: a digest with where it was read,
// or why none could be read (then `refresh -check` refuses a release);
// and digests.txt names nothing the table does not. A version bump fails
// here until `go run ./hack/cluster/refresh` has read the new files.
func TestDigestsCoverTheTable(t *testing.T) {
	carried := Carried()
	want := map[string]bool{}
	for _, p := range Platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		ds, _ := Downloads(goos, goarch)
		for _, d := range ds {
			keys := []string{d.URL}
			for _, b := range d.Binaries {
				if d.Members != nil {
					keys = append(keys, d.URL+"#"+d.Members[b])
				}
			}
			for _, k := range keys {
				want[k] = true
				c, ok := carried[k]
				switch {
				case !ok:
					t.Errorf("%s: no carried digest, and no line saying why (run go run ./hack/cluster/refresh)", k)
				case c.SHA256 != "" && c.Source == "":
					t.Errorf("%s: a digest that does not say where it was read", k)
				case c.SHA256 == "" && c.Unread == "":
					t.Errorf("%s: no digest, and no reason", k)
				}
			}
		}
	}
	for k := range carried {
		if !want[k] {
			t.Errorf("digests.txt has %s, which the table does not download", k)
		}
	}
}

// digests.txt is as refresh writes it (FormatDigests), so that a refresh
// changes only the lines whose files changed.
func TestDigestsFileIsCanonical(t *testing.T) {
	if got := string(FormatDigests(DigestsHeader, Carried())); got != digestsFile {
		t.Errorf("digests.txt is not as FormatDigests writes it; FormatDigests:\n%s", got)
	}
}

// What the release check refuses: every file without a carried digest,
// with why. kwok's and etcd's tarballs are carried (two sources each).
func TestUncarried(t *testing.T) {
	missing := strings.Join(Uncarried(), "\n")
	for _, want := range []string{"linux/arm64/kube-apiserver: none read here", "#etcd-" + EtcdVersion + "-linux-amd64/etcd: "} {
		if !strings.Contains(missing, want) {
			t.Errorf("Uncarried lacks %q:\n%s", want, missing)
		}
	}
	for _, carried := range []string{"kwok-linux-amd64", "kwokctl-linux-arm64", "etcd-" + EtcdVersion + "-linux-amd64.tar.gz:"} {
		if strings.Contains(missing, carried) {
			t.Errorf("Uncarried lists %s, whose digest labmate carries", carried)
		}
	}
}

func TestParseDigestsRefusesBadLines(t *testing.T) {
	d := strings.Repeat("ab", 32)
	for _, bad := range []string{
		"xyz  -  https://h/f  src",
		d + "  -1  https://h/f  src",
		d + "  -  https://h/f",
		d + "  -  https://h/f  src\n" + d + "  -  https://h/f  src",
	} {
		if _, err := ParseDigests(bad); err == nil {
			t.Errorf("ParseDigests(%q) took it", bad)
		}
	}
	m, err := ParseDigests("# c\n" + d + "  12  https://h/f  read there\n-  -  https://h/g  not read: why\n")
	if err != nil || m["https://h/f"] != (Digest{SHA256: d, Size: 12, Source: "read there"}) || m["https://h/g"].Unread != "not read: why" {
		t.Errorf("ParseDigests = %+v, %v", m, err)
	}
}

func TestParseSum(t *testing.T) {
	d := strings.Repeat("ab", 32)
	for _, tc := range []struct{ data, name, want string }{
		{d + "\n", "", d},
		{d + "  kubectl\n", "", d},
		{"ffff  other.tar.gz\n" + d + "  etcd-v3.6.4-linux-amd64.tar.gz\n", "etcd-v3.6.4-linux-amd64.tar.gz", d},
		{d + " *etcd.tar.gz\n", "etcd.tar.gz", d},
		{"ffff  other.tar.gz\n", "etcd.tar.gz", ""},
		{"<html>not found</html>\n", "", ""},
	} {
		if got := ParseSum([]byte(tc.data), tc.name); got != tc.want {
			t.Errorf("ParseSum(%q, %q) = %q, want %q", tc.data, tc.name, got, tc.want)
		}
	}
}

// upstreamLayout is a loopback server with upstream's layout
// (/<host>/<path>) serving made-up files for every file of the table, on
// both platforms, with dl.k8s.io's .sha256 and etcd's SHA256SUMS.
type upstreamLayout struct {
	srv   *httptest.Server
	files map[string][]byte // URL path -> body
	table func(goos, goarch string) ([]Download, bool)
}

func newUpstreamLayout(t *testing.T, carried map[string]Digest) *upstreamLayout {
	t.Helper()
	u := &upstreamLayout{files: map[string][]byte{}}
	u.table = func(goos, goarch string) ([]Download, bool) {
		ds, ok := Downloads(goos, goarch)
		for i := range ds {
			ds[i].Carried = carried[ds[i].URL]
			for b, m := range ds[i].Members {
				ds[i].MemberDigests[b] = carried[ds[i].URL+"#"+m]
			}
		}
		return ds, ok
	}
	sums := map[string]*strings.Builder{}
	for _, p := range Platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		ds, _ := Downloads(goos, goarch)
		for _, d := range ds {
			body := []byte("the file " + d.URL)
			if d.Members != nil {
				body = tgz(t, map[string][]byte{d.Members["etcd"]: []byte("etcd " + goarch), "README.md": []byte("readme")})
			}
			u.files[pathOf(d.URL)] = body
			switch {
			case d.Checksum.List:
				b := sums[d.Checksum.URL]
				if b == nil {
					b = &strings.Builder{}
					sums[d.Checksum.URL] = b
				}
				fmt.Fprintf(b, "%s  %s\n", sum(body), d.Name())
				u.files[pathOf(d.Checksum.URL)] = []byte(b.String())
			case d.Checksum.URL != "":
				u.files[pathOf(d.Checksum.URL)] = []byte(sum(body) + "\n")
			}
		}
	}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := u.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstreamLayout) refresh() (map[string]Digest, error) {
	return Refresh(context.Background(), RefreshOptions{Base: u.srv.URL, Date: "2026-10-12", Table: u.table})
}

// The maintainer's refresh reads every file of the table from a server
// in upstream's layout, checks each against upstream's checksum, and
// returns a digest and size for every file and tarball member, each
// saying where it was read; FormatDigests of it parses back the same.
func TestRefreshFromUpstreamsLayout(t *testing.T) {
	u := newUpstreamLayout(t, nil)
	got, err := u.refresh()
	if err != nil {
		t.Fatal(err)
	}
	for k := range Carried() { // every key digests.txt has
		d, ok := got[k]
		if !ok {
			t.Errorf("refresh read nothing for %s", k)
			continue
		}
		path, member, _ := strings.Cut(k, "#")
		body := u.files[pathOf(path)]
		if member != "" {
			body = []byte("etcd " + strings.TrimSuffix(strings.Split(member, "-linux-")[1], "/etcd"))
		}
		if d.SHA256 != sum(body) || d.Size != int64(len(body)) || !strings.Contains(d.Source, "2026-10-12") {
			t.Errorf("%s: %+v, want sha256 %s size %d", k, d, sum(body), len(body))
		}
	}
	if d := got["https://dl.k8s.io/release/"+K8sVersion+"/bin/linux/arm64/kubectl"]; !strings.Contains(d.Source, "kubectl.sha256") {
		t.Errorf("kubectl's source %q does not name upstream's checksum file", d.Source)
	}
	back, err := ParseDigests(string(FormatDigests(DigestsHeader, got)))
	if err != nil || len(back) != len(got) {
		t.Fatalf("FormatDigests does not parse back: %d of %d, %v", len(back), len(got), err)
	}
}

// A file that differs from upstream's own checksum, or from a digest
// labmate already carries, stops the refresh with both digests; one that
// matches a carried digest keeps the sources that vouched for it.
func TestRefreshRefusesWhatDisagrees(t *testing.T) {
	kwok := "https://github.com/kubernetes-sigs/kwok/releases/download/" + KwokVersion + "/kwok-linux-arm64"
	apiserver := "https://dl.k8s.io/release/" + K8sVersion + "/bin/linux/amd64/kube-apiserver"

	u := newUpstreamLayout(t, nil)
	u.files[pathOf(apiserver)] = []byte("changed")
	if _, err := u.refresh(); err == nil || !strings.Contains(err.Error(), sum([]byte("changed"))) || !strings.Contains(err.Error(), "kube-apiserver.sha256") {
		t.Errorf("a file that is not upstream's checksum's: %v", err)
	}

	pinned := strings.Repeat("0", 64)
	u = newUpstreamLayout(t, map[string]Digest{kwok: {SHA256: pinned, Source: "two packagers"}})
	if _, err := u.refresh(); err == nil || !strings.Contains(err.Error(), pinned) || !strings.Contains(err.Error(), kwok) {
		t.Errorf("a file that is not the carried digest: %v", err)
	}

	u = newUpstreamLayout(t, nil)
	u = newUpstreamLayout(t, map[string]Digest{kwok: {SHA256: sum(u.files[pathOf(kwok)]), Source: "two packagers"}})
	got, err := u.refresh()
	if err != nil {
		t.Fatal(err)
	}
	if s := got[kwok].Source; !strings.HasPrefix(s, "two packagers; ") || !strings.Contains(s, "matches") {
		t.Errorf("kwok's source after a matching refresh: %q", s)
	}
}

func pathOf(upstream string) string {
	u, _ := url.Parse(upstream)
	return "/" + u.Host + u.Path
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func tgz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for n, b := range files {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}
