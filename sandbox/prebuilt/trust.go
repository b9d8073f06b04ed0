package prebuilt

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/hack/cluster"
)

// What may vouch for a file labmate runs, strongest first (docs/SANDBOX.md,
// "Who vouches for what"):
//
//   - a digest labmate carries (hack/cluster's digests.txt), read when
//     the versions were chosen from upstream's published checksums or two
//     independent packagers: the only thing that vouches on its own;
//   - a digest the learner gave on this machine: the bundle's own sha256
//     (--sha256, which `sandbox bundle` prints), or a sums file
//     (LABMATE_SANDBOX_SHA256SUMS);
//   - only where labmate carries no digest for a file, and only for a
//     download from upstream itself over https: upstream's checksum file
//     beside it, on the same host. It catches a broken download, not a
//     changed one; the progress line and the stamp say so, and the
//     release check refuses a release while one remains.
//
// A mirror's .sha256 and SHA256SUMS and a bundle's manifest vouch for
// nothing: they come from the same place as the files.

// Vouch is what a file was checked against: its word in the stamp.
type Vouch string

const (
	VouchCarried  Vouch = "carried"            // a digest labmate carries
	VouchGiven    Vouch = "given"              // the learner's sums file (EnvSums)
	VouchBundle   Vouch = "bundle-sha256"      // the bundle's own digest the learner gave
	VouchSameHost Vouch = "same-host-checksum" // upstream's checksum beside the file (no digest carried)
)

// words says in Korean what a file was checked against (detail: the
// source of a carried digest, the sums file, the bundle's digest, the
// checksum file's URL).
func (v Vouch) words(detail string) string {
	key := map[Vouch]string{VouchCarried: "prebuilt.checked.carried", VouchGiven: "prebuilt.checked.given",
		VouchBundle: "prebuilt.checked.bundle", VouchSameHost: "prebuilt.checked.same_host"}[v]
	return content.Msg(key, "detail", detail)
}

// source says in Korean what an expected digest is, for a mismatch.
func (v Vouch) source(detail string) string {
	key := map[Vouch]string{VouchCarried: "prebuilt.source.carried", VouchGiven: "prebuilt.source.given",
		VouchBundle: "prebuilt.source.bundle", VouchSameHost: "prebuilt.source.same_host"}[v]
	return content.Msg(key, "detail", detail)
}

// given is what the learner vouches for on this machine: EnvSums' file,
// digests by file name (several may be given for one name).
type given struct {
	path string
	sums map[string][]string
}

// loadGiven reads EnvSums' file, if set.
func loadGiven() (given, error) {
	g := given{path: os.Getenv(EnvSums), sums: map[string][]string{}}
	if g.path == "" {
		return g, nil
	}
	data, err := os.ReadFile(g.path)
	if err != nil {
		return g, fmt.Errorf("%s: %w", EnvSums, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && !strings.HasPrefix(f[0], "#") {
			name := strings.TrimPrefix(f[1], "*")
			g.sums[name] = append(g.sums[name], strings.ToLower(f[0]))
		}
	}
	return g, nil
}

// has reports whether sum is given for one of names.
func (g given) has(sum string, names ...string) bool {
	for _, n := range names {
		for _, s := range g.sums[n] {
			if s == sum {
				return true
			}
		}
	}
	return false
}

// any reports whether some digest is given for one of names.
func (g given) any(names ...string) bool {
	for _, n := range names {
		if len(g.sums[n]) > 0 {
			return true
		}
	}
	return false
}

// sameHostAllowed reports whether a file labmate carries no digest for
// may fall back to upstream's checksum beside it: a download from
// upstream itself, over https, of a file upstream publishes a checksum
// for.
func (in *installer) sameHostAllowed(d cluster.Download) bool {
	return in.kind == Upstream && in.o.From == "" && strings.HasPrefix(d.URL, "https://") && d.Checksum.URL != "" &&
		strings.HasPrefix(d.Checksum.URL, "https://")
}

// vouchable refuses, before anything is fetched, the files that nothing
// could vouch for: no digest carried, none given, no same-host fallback
// (a mirror's, or plain http).
func (in *installer) vouchable(todo []cluster.Download) error {
	var files []UnvouchedFile
	for _, d := range todo {
		if d.Carried.SHA256 == "" && !in.given.any(d.Name()) && !in.sameHostAllowed(d) {
			files = append(files, UnvouchedFile{Name: d.Name(), Why: d.Carried.Unread})
		}
	}
	if len(files) > 0 {
		return &UnvouchedError{From: in.from, Files: files, Env: EnvSums}
	}
	return nil
}

// vouch says what vouches for d, fetched from src with sha256 got and
// size bytes, and in words for its progress line; an error when nothing
// does (a *ChecksumError when a digest was expected and differs).
func (in *installer) vouch(ctx context.Context, d cluster.Download, src, got string, size int64) (Vouch, string, error) {
	c := d.Carried
	switch {
	case c.SHA256 != "" && got == c.SHA256 && (c.Size == 0 || size == c.Size):
		return VouchCarried, VouchCarried.words(c.Source), nil
	case in.given.has(got, d.Name()):
		return VouchGiven, VouchGiven.words(in.given.path), nil
	case c.SHA256 != "":
		return "", "", &ChecksumError{File: d.Name(), URL: Redact(src), Want: c.SHA256, Got: got,
			Source: VouchCarried.source(c.Source), Given: in.given.any(d.Name())}
	case !in.sameHostAllowed(d):
		return "", "", &UnvouchedError{From: in.from, Files: []UnvouchedFile{{Name: d.Name(), SHA256: got, Why: c.Unread}}, Env: EnvSums}
	}
	data, ok := in.sameHost[d.Checksum.URL]
	if !ok {
		var err error
		if data, err = in.f.small(ctx, d.Checksum.URL); err != nil {
			return "", "", err
		}
		if in.sameHost == nil {
			in.sameHost = map[string][]byte{}
		}
		in.sameHost[d.Checksum.URL] = data
	}
	name := ""
	if d.Checksum.List {
		name = d.Name()
	}
	published := cluster.ParseSum(data, name)
	if published == "" {
		return "", "", fmt.Errorf("%s", content.Msg("prebuilt.err.no_sum", "file", d.Name(), "url", d.Checksum.URL))
	}
	if published != got {
		return "", "", &ChecksumError{File: d.Name(), URL: src, Want: published, Got: got, Source: VouchSameHost.source(d.Checksum.URL)}
	}
	return VouchSameHost, VouchSameHost.words(d.Checksum.URL), nil
}

// binaryDigest is the digest labmate carries of binary as it lies in a
// bin dir (a bare download's, or a tarball member's), and the names the
// learner may give a digest under (the binary's, and the upstream file's
// when the binary is that file).
func binaryDigest(goos, goarch, binary string) (cluster.Digest, []string) {
	ds, _ := cluster.Downloads(goos, goarch)
	for _, d := range ds {
		if !containsStr(d.Binaries, binary) {
			continue
		}
		if d.Members == nil {
			return d.Carried, []string{binary, d.Name()}
		}
		return d.MemberDigests[binary], []string{binary}
	}
	return cluster.Digest{}, []string{binary}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CheckDigest refuses what is not a sha256 in hex (--sha256's value).
func CheckDigest(s string) error {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) != 64 || strings.Trim(s, "0123456789abcdef") != "" {
		return fmt.Errorf("%s", content.Msg("prebuilt.err.bad_sha256", "value", s))
	}
	return nil
}

// Redact is s without a URL's credentials (user and password), for every
// line, the stamp and a bundle's manifest: a mirror URL may carry them.
func Redact(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}
