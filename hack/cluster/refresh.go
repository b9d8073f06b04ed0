package cluster

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// RefreshOptions are Refresh's.
type RefreshOptions struct {
	// Client fetches; nil means http.DefaultClient.
	Client *http.Client
	// Base, when set, is a server with upstream's layout under it
	// (<base>/<host>/<path>, as `wget -x` saves a download) to read from
	// instead of upstream: for a test on loopback.
	Base string
	// Date is written into each source ("2026-10-12"); empty means today.
	Date string
	// Log receives a line per file; nil discards them.
	Log io.Writer
	// MaxSize bounds each file (default 1 GiB).
	MaxSize int64
	// Table replaces Downloads, for tests.
	Table func(goos, goarch string) ([]Download, bool)
}

// Refresh reads the digest of every file of the table, for every
// platform, from upstream: it downloads each file, checks it against the
// checksum upstream publishes (dl.k8s.io's .sha256, etcd's SHA256SUMS),
// and records its sha256 and size, and those of a tarball's members. A
// file upstream publishes no checksum for (kwok's) is recorded as
// fetched over https, and must equal the digest already carried, if
// any. Any disagreement (the file and upstream's checksum, or either
// and a digest already carried) is an error that names both: a released
// file does not change, so one that did is for a person to look at.
// It returns the new digests.txt's lines by key (Carried's keys).
func Refresh(ctx context.Context, o RefreshOptions) (map[string]Digest, error) {
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	if o.Date == "" {
		o.Date = time.Now().UTC().Format("2006-01-02")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.MaxSize == 0 {
		o.MaxSize = 1 << 30
	}
	if o.Table == nil {
		o.Table = Downloads
	}
	out := map[string]Digest{}
	sums := map[string][]byte{}
	for _, p := range Platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		ds, _ := o.Table(goos, goarch)
		for _, d := range ds {
			got, members, err := o.fetch(ctx, d)
			if err != nil {
				return nil, err
			}
			if d.Checksum.URL != "" {
				data, ok := sums[d.Checksum.URL]
				if !ok {
					if data, err = o.small(ctx, d.Checksum.URL); err != nil {
						return nil, err
					}
					sums[d.Checksum.URL] = data
				}
				name := ""
				if d.Checksum.List {
					name = d.Name()
				}
				published := ParseSum(data, name)
				if published != got.SHA256 {
					return nil, fmt.Errorf("%s: its sha256 is %s, upstream's %s says %q", d.URL, got.SHA256, d.Checksum.URL, published)
				}
				got.Source = fmt.Sprintf("upstream's %s, checked against the file by hack/cluster/refresh on %s", lastElem(d.Checksum.URL), o.Date)
			} else {
				got.Source = fmt.Sprintf("the file's own sha256 as fetched over https by hack/cluster/refresh on %s (upstream publishes no checksum)", o.Date)
			}
			if err := agree(d.URL, d.Carried, &got, o.Date); err != nil {
				return nil, err
			}
			out[d.URL] = got
			for b, m := range members {
				key := d.URL + "#" + d.Members[b]
				m.Source = fmt.Sprintf("read from the checked %s by hack/cluster/refresh on %s", d.Name(), o.Date)
				if err := agree(key, d.MemberDigests[b], &m, o.Date); err != nil {
					return nil, err
				}
				out[key] = m
			}
			fmt.Fprintf(o.Log, "%s  %d  %s\n", got.SHA256, got.Size, d.URL)
		}
	}
	return out, nil
}

// agree checks got against the digest carried before: the same, or none
// was carried. The same digest keeps the sources that vouched for it.
func agree(key string, before Digest, got *Digest, date string) error {
	switch {
	case before.SHA256 == "":
	case before.SHA256 != got.SHA256:
		return fmt.Errorf("%s: upstream now serves sha256 %s, labmate carries %s (%s): a released file changed, or the carried digest is wrong; look before you replace it",
			key, got.SHA256, before.SHA256, before.Source)
	case before.Size != 0 && before.Size != got.Size:
		return fmt.Errorf("%s: %d bytes, labmate carries %d", key, got.Size, before.Size)
	case !strings.Contains(before.Source, "hack/cluster/refresh"):
		got.Source = before.Source + "; the file fetched by hack/cluster/refresh on " + date + " matches"
	}
	return nil
}

// fetch downloads d, its sha256 and size, and those of its members.
func (o RefreshOptions) fetch(ctx context.Context, d Download) (Digest, map[string]Digest, error) {
	body, err := o.get(ctx, d.URL)
	if err != nil {
		return Digest{}, nil, err
	}
	defer body.Close()
	h := sha256.New()
	var r io.Reader = io.TeeReader(io.LimitReader(body, o.MaxSize+1), h)
	var tmp *os.File
	if d.Members != nil {
		if tmp, err = os.CreateTemp("", "refresh-*.tar.gz"); err != nil {
			return Digest{}, nil, err
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		r = io.TeeReader(r, tmp)
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return Digest{}, nil, fmt.Errorf("%s: %w", d.URL, err)
	}
	if n > o.MaxSize {
		return Digest{}, nil, fmt.Errorf("%s: larger than %d bytes", d.URL, o.MaxSize)
	}
	got := Digest{SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}
	if d.Members == nil {
		return got, nil, nil
	}
	members, err := memberDigests(tmp, d)
	return got, members, err
}

// memberDigests reads the tarball f and returns the digest of each of
// d's members.
func memberDigests(f *os.File, d Download) (map[string]Digest, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.URL, err)
	}
	tr := tar.NewReader(zr)
	out := map[string]Digest{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.URL, err)
		}
		for b, m := range d.Members {
			if hdr.Name == m && hdr.Typeflag == tar.TypeReg {
				h := sha256.New()
				n, err := io.Copy(h, tr)
				if err != nil {
					return nil, fmt.Errorf("%s#%s: %w", d.URL, m, err)
				}
				out[b] = Digest{SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}
			}
		}
	}
	for b, m := range d.Members {
		if _, ok := out[b]; !ok {
			return nil, fmt.Errorf("%s: no %s inside", d.URL, m)
		}
	}
	return out, nil
}

// small fetches a checksum file (at most 1 MiB).
func (o RefreshOptions) small(ctx context.Context, rawURL string) ([]byte, error) {
	body, err := o.get(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return io.ReadAll(io.LimitReader(body, 1<<20))
}

// get opens rawURL (or its copy under Base), failing on any status but 200.
func (o RefreshOptions) get(ctx context.Context, rawURL string) (io.ReadCloser, error) {
	from := rawURL
	if o.Base != "" {
		u, err := url.Parse(rawURL)
		if err != nil {
			return nil, err
		}
		from = strings.TrimSuffix(o.Base, "/") + "/" + u.Host + u.Path
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, from, nil)
	if err != nil {
		return nil, err
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %s", from, resp.Status)
	}
	return resp.Body, nil
}

// lastElem is a URL's last element.
func lastElem(rawURL string) string { return rawURL[strings.LastIndexByte(rawURL, '/')+1:] }

// ParseSum reads a checksum file: a bare digest (dl.k8s.io's .sha256),
// or sha256sum's lines ("<digest>  <name>", etcd's SHA256SUMS) from
// which the line of name is taken. "" when it has none.
func ParseSum(data []byte, name string) string {
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		var sum string
		switch {
		case len(fields) == 1 && name == "":
			sum = fields[0]
		case len(fields) >= 2 && (name == "" || strings.TrimPrefix(fields[1], "*") == name):
			sum = fields[0]
		default:
			continue
		}
		if sum = strings.ToLower(sum); isHex64(sum) {
			return sum
		}
		return ""
	}
	return ""
}
