package cluster

import (
	"bufio"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// digestsFile is digests.txt: the digest labmate carries of every file of
// the download table, for every platform, one line each:
//
//	<sha256>  <size>  <url>[#<member>]  <where it was read>
//
// "-" for a sha256 or a size not known; a line whose sha256 is "-" says
// in its last field why none could be read. A member line carries a
// binary inside a tarball (etcd inside etcd's release tarball): what a
// bundle holds. `go run ./hack/cluster/refresh` writes the file.
//
//go:embed digests.txt
var digestsFile string

// DigestsHeader starts digests.txt.
const DigestsHeader = "" +
	"# The digests labmate carries of the cluster binaries' release files\n" +
	"# (hack/cluster's download table), for every platform it downloads for:\n" +
	"#   <sha256>  <size>  <url>[#<member of a tarball>]  <where it was read>\n" +
	"# \"-\" where not known; a line whose sha256 is \"-\" says why none could be\n" +
	"# read. Written by `go run ./hack/cluster/refresh`, which downloads every\n" +
	"# file, checks it against upstream's own published checksum and records\n" +
	"# its sha256 and size; run it on a networked machine when a version in\n" +
	"# hack/cluster/recipe.go changes (TestDigestsCoverTheTable fails until\n" +
	"# then). `go run ./hack/cluster/refresh -check` (make release-check)\n" +
	"# refuses a release while a line has no sha256.\n"

// carried parses digestsFile once.
var carried = sync.OnceValue(func() map[string]Digest {
	m, err := ParseDigests(digestsFile)
	if err != nil {
		panic("hack/cluster/digests.txt: " + err.Error()) // a test keeps it parsable
	}
	return m
})

// Carried is every digest labmate carries, by URL (and URL#member for a
// tarball's member), a line whose sha256 could not be read included.
func Carried() map[string]Digest {
	m := carried()
	out := make(map[string]Digest, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ParseDigests reads digests.txt's format.
func ParseDigests(text string) (map[string]Digest, error) {
	out := map[string]Digest{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("line %d: want <sha256> <size> <url> <source>, got %q", n, line)
		}
		d := Digest{Source: strings.Join(f[3:], " ")}
		switch {
		case f[0] == "-":
			d.Unread, d.Source = d.Source, ""
		case isHex64(f[0]):
			d.SHA256 = f[0]
		default:
			return nil, fmt.Errorf("line %d: %q is not a sha256", n, f[0])
		}
		if f[1] != "-" {
			size, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || size <= 0 {
				return nil, fmt.Errorf("line %d: %q is not a size", n, f[1])
			}
			d.Size = size
		}
		if _, dup := out[f[2]]; dup {
			return nil, fmt.Errorf("line %d: %s twice", n, f[2])
		}
		out[f[2]] = d
	}
	return out, sc.Err()
}

// FormatDigests writes digests in digests.txt's format, after header
// (comment lines), sorted by URL.
func FormatDigests(header string, digests map[string]Digest) []byte {
	var b strings.Builder
	b.WriteString(header)
	keys := make([]string, 0, len(digests))
	for k := range digests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		d := digests[k]
		sum, size, why := d.SHA256, "-", d.Source
		if sum == "" {
			sum, why = "-", d.Unread
		}
		if d.Size > 0 {
			size = strconv.FormatInt(d.Size, 10)
		}
		fmt.Fprintf(&b, "%s  %s  %s  %s\n", sum, size, k, strings.Join(strings.Fields(why), " "))
	}
	return []byte(b.String())
}

// Uncarried lists, for every platform, each file of the table (and each
// tarball member) labmate carries no digest for, with why: what the
// release check refuses.
func Uncarried() []string {
	var out []string
	for _, p := range Platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		ds, _ := Downloads(goos, goarch)
		for _, d := range ds {
			if d.Carried.SHA256 == "" {
				out = append(out, d.URL+": "+orNone(d.Carried.Unread))
			}
			for _, b := range d.Binaries {
				if md, ok := d.MemberDigests[b]; ok && md.SHA256 == "" {
					out = append(out, d.URL+"#"+d.Members[b]+": "+orNone(md.Unread))
				}
			}
		}
	}
	return out
}

func orNone(why string) string {
	if why == "" {
		return "no line in digests.txt"
	}
	return why
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}
