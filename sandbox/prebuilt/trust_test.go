package prebuilt

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/hack/cluster"
)

// The cases of issue 44: what a hostile classmate or a careless mirror
// tried, each refused with nothing installed; and a genuine bundle with
// the digest the learner was given, installed.

// entry is one member of a hand-made bundle.
type entry struct {
	hdr  tar.Header
	data []byte
}

// writeEntries writes a tar.gz of entries.
func writeEntries(t *testing.T, entries []entry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := e.hdr
		if h.Typeflag == tar.TypeReg || h.Typeflag == 0 {
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if len(e.data) > 0 {
			tw.Write(e.data)
		}
	}
	tw.Close()
	zw.Close()
	out := filepath.Join(t.TempDir(), "bundle.tar.gz")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// scriptBundle is a bundle of the seven binaries as shell scripts with a
// manifest that lists their digests, plus extra entries (each listed in
// the manifest with its digest too, as a crafted bundle would).
func scriptBundle(t *testing.T, extra ...entry) string {
	t.Helper()
	m := Manifest{Format: 1, OS: "linux", Arch: "amd64", Versions: versions(), Origin: "crafted"}
	var files []entry
	for _, b := range binaries {
		data := []byte("#!/bin/sh\necho pwned by " + b + "\n")
		files = append(files, entry{tar.Header{Name: b, Mode: 0o755, Typeflag: tar.TypeReg}, data})
	}
	files = append(files, extra...)
	for _, f := range files {
		if f.hdr.Typeflag == tar.TypeReg {
			m.Files = append(m.Files, ManifestFile{Name: f.hdr.Name, SHA256: sum(f.data), Size: int64(len(f.data))})
		} else {
			m.Files = append(m.Files, ManifestFile{Name: f.hdr.Name, SHA256: sum(nil), Size: 0})
		}
	}
	manifest, _ := json.Marshal(m)
	return writeEntries(t, append([]entry{{tar.Header{Name: ManifestName, Mode: 0o644, Typeflag: tar.TypeReg}, manifest}}, files...))
}

// refused runs Install from a bundle into a bin dir holding a binary of
// the learner's, and fails unless it is refused with a *BundleError of
// key (or any error when key is "") and the bin dir is as it was.
func refused(t *testing.T, o Options, key string) error {
	t.Helper()
	os.MkdirAll(o.BinDir, 0o755)
	os.WriteFile(filepath.Join(o.BinDir, "kubectl"), []byte("mine"), 0o755)
	before := snapshot(t, o.BinDir)
	_, err := Install(context.Background(), o)
	var be *BundleError
	switch {
	case err == nil:
		t.Errorf("installed")
	case key != "" && (!errors.As(err, &be) || be.Key != key):
		t.Errorf("Install = %v, want a *BundleError %s", err, key)
	}
	if after := snapshot(t, o.BinDir); !equal(before, after) {
		t.Errorf("bin dir changed:\nbefore %v\nafter  %v", before, after)
	}
	return err
}

// A manifest entry named ../../…/x with its correct sha256 creates
// nothing outside the bin dir: the whole bundle is refused by name.
func TestBundleTraversalIsRefused(t *testing.T) {
	escape := filepath.Join(t.TempDir(), "x")
	name := strings.Repeat("../", 40) + strings.TrimPrefix(escape, "/")
	bundle := scriptBundle(t, entry{tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg}, []byte("outside")})
	refused(t, bundleOptions(filepath.Join(t.TempDir(), "bin"), bundle), "prebuilt.bundle.bad_name")
	if _, err := os.Stat(escape); !os.IsNotExist(err) {
		t.Errorf("the bundle wrote %s (%v)", escape, err)
	}
}

// An absolute name is refused the same way.
func TestBundleAbsoluteNameIsRefused(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "abs")
	bundle := scriptBundle(t, entry{tar.Header{Name: abs, Mode: 0o644, Typeflag: tar.TypeReg}, []byte("outside")})
	refused(t, bundleOptions(filepath.Join(t.TempDir(), "bin"), bundle), "prebuilt.bundle.bad_name")
	if _, err := os.Stat(abs); !os.IsNotExist(err) {
		t.Errorf("the bundle wrote %s (%v)", abs, err)
	}
}

// An entry that is a link (named as a binary, pointing anywhere) or a
// device refuses the whole bundle: only regular files are binaries.
func TestBundleLinkIsRefused(t *testing.T) {
	for _, typ := range []byte{tar.TypeSymlink, tar.TypeLink, tar.TypeChar} {
		t.Run(string(rune('0'+typ-'0')), func(t *testing.T) {
			link := entry{tar.Header{Name: "kubectl", Linkname: "/etc/passwd", Mode: 0o777, Typeflag: typ, Devmajor: 1, Devminor: 3}, nil}
			m := Manifest{Format: 1, OS: "linux", Arch: "amd64", Versions: versions()}
			var es []entry
			for _, b := range binaries {
				if b == "kubectl" {
					es = append(es, link)
					m.Files = append(m.Files, ManifestFile{Name: b, SHA256: sum(nil), Size: 10})
					continue
				}
				data := []byte("#!/bin/sh\n")
				es = append(es, entry{tar.Header{Name: b, Mode: 0o755, Typeflag: tar.TypeReg}, data})
				m.Files = append(m.Files, ManifestFile{Name: b, SHA256: sum(data), Size: int64(len(data))})
			}
			manifest, _ := json.Marshal(m)
			bundle := writeEntries(t, append([]entry{{tar.Header{Name: ManifestName, Mode: 0o644, Typeflag: tar.TypeReg}, manifest}}, es...))
			o := bundleOptions(filepath.Join(t.TempDir(), "bin"), bundle)
			o.SHA256 = sumOfFile(t, bundle) // even a bundle the learner vouches for
			refused(t, o, "prebuilt.bundle.bad_entry")
		})
	}
}

// Seven shell scripts with a manifest that lists their digests: a bundle
// is not its own root of trust. Without a digest the learner gave, it is
// refused, naming the file that matched nothing labmate carries.
func TestBundleOfScriptsIsRefused(t *testing.T) {
	t.Setenv(EnvSums, "")
	err := refused(t, bundleOptions(filepath.Join(t.TempDir(), "bin"), scriptBundle(t)), "")
	var ue *UnvouchedError
	if !errors.As(err, &ue) || len(ue.Files) == 0 || !strings.Contains(err.Error(), "--sha256") {
		t.Errorf("Install = %v, want an *UnvouchedError that says how to vouch (--sha256)", err)
	}
}

// A mirror that serves a changed kube-apiserver with a matching .sha256:
// the mirror's own checksum files vouch for nothing. (kwok's files are
// vouched for on this machine, so the refusal is the mirror's checksums'.)
func TestMirrorsOwnChecksumVouchesForNothing(t *testing.T) {
	m := newFakeMirror(t, 32<<10)
	ds, _ := cluster.Downloads("linux", "amd64")
	var sums strings.Builder
	for _, d := range ds {
		if d.Component == "kwok" {
			fmt.Fprintf(&sums, "%s  %s\n", sum(m.content[d.Binaries[0]]), d.Name())
		}
	}
	path := filepath.Join(t.TempDir(), "kwok.sha256sums")
	os.WriteFile(path, []byte(sums.String()), 0o644)
	t.Setenv(EnvSums, path)
	bin := t.TempDir()
	before := snapshot(t, bin)
	_, err := Install(context.Background(), m.options(bin, io.Discard))
	var ue *UnvouchedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "kube-apiserver") {
		t.Fatalf("Install = %v, want an *UnvouchedError naming kube-apiserver", err)
	}
	if after := snapshot(t, bin); !equal(before, after) {
		t.Errorf("bin dir changed: %v", after)
	}
	for _, p := range []string{".sha256", "SHA256SUMS"} {
		for path, n := range m.requests {
			if strings.HasSuffix(path, p) && n > 0 {
				t.Errorf("asked the mirror for %s", path)
			}
		}
	}
}

// A redirect to file:// (a local file the mirror chose) or from https to
// plain http is not followed: the install fails, nothing installed. The
// file it leads to is vouched for, so only the redirect is wrong.
func TestRedirectsOnlyToHTTPAndNeverDown(t *testing.T) {
	local := filepath.Join(t.TempDir(), "local")
	os.WriteFile(local, []byte("a local file"), 0o755)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("a local file")) }))
	defer plain.Close()
	for _, tc := range []struct {
		name, to string
		tls      bool
	}{{"file", "file://" + local, false}, {"https to http", plain.URL + "/x", true}} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFakeMirror(t, 16<<10)
			sumsFile(t, "kubectl", sum([]byte("a local file")))
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/kubectl") {
					http.Redirect(w, r, tc.to, http.StatusFound)
					return
				}
				m.serve(w, r)
			})
			o := m.options(filepath.Join(t.TempDir(), "bin"), io.Discard)
			if tc.tls {
				srv := httptest.NewTLSServer(h)
				defer srv.Close()
				o.From, o.HTTPClient = srv.URL, srv.Client()
			} else {
				srv := httptest.NewServer(h)
				defer srv.Close()
				o.From = srv.URL
			}
			_, err := Install(context.Background(), o)
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Errorf("Install = %v, want a *RedirectError", err)
			}
			if _, err := os.Stat(filepath.Join(o.BinDir, "kubectl")); !os.IsNotExist(err) {
				t.Errorf("kubectl installed (%v)", err)
			}
		})
	}
}

// A 503 with Retry-After: 3600 is not obeyed for an hour: the wait is
// capped, and said, and the retry then gets the file.
func TestRetryAfterIsCappedAndShown(t *testing.T) {
	m := newFakeMirror(t, 16<<10)
	var first = true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/kubectl") && first {
			first = false
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		m.serve(w, r)
	}))
	defer srv.Close()
	var out bytes.Buffer
	o := m.options(t.TempDir(), &out)
	o.From = srv.URL
	o.MaxRetryAfter = 100 * time.Millisecond
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatalf("Install: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "1시간") {
		t.Errorf("the long wait the server asked for is not shown:\n%s", out.String())
	}
}

// A body that never ends is cut at the size limit (the carried size, or
// a generous cap), and nothing is installed.
func TestEndlessBodyIsCut(t *testing.T) {
	m := newFakeMirror(t, 16<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/kubectl") {
			buf := make([]byte, 32<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(buf); err != nil {
					return
				}
			}
			return
		}
		m.serve(w, r)
	}))
	defer srv.Close()
	o := m.options(t.TempDir(), io.Discard)
	o.From = srv.URL
	o.MaxSize = 1 << 20
	before := snapshot(t, o.BinDir)
	_, err := Install(context.Background(), o)
	var te *TooLargeError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "kubectl") {
		t.Fatalf("Install = %v, want a *TooLargeError for kubectl", err)
	}
	if after := snapshot(t, o.BinDir); !equal(before, after) {
		t.Errorf("bin dir changed: %v", after)
	}
}

// A genuine bundle of binaries labmate carries no digest for (built from
// source) installs with its own sha256 given (--sha256), and the stamp
// says what vouched for them; with a wrong digest it is refused and
// nothing is installed.
func TestBundleWithItsDigest(t *testing.T) {
	_, bin := filledBinDir(t)
	bundle := filepath.Join(t.TempDir(), "b.tar.gz")
	rep, err := WriteBundle(context.Background(), BundleOptions{BinDir: bin, Binaries: binaries, Out: bundle})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvSums, "")

	wrong := strings.Repeat("0", 64)
	o := bundleOptions(filepath.Join(t.TempDir(), "bin"), bundle)
	o.SHA256 = wrong
	err = refused(t, o, "")
	var de *BundleDigestError
	if !errors.As(err, &de) || de.Want != wrong || de.Got != rep.SHA256 || !strings.Contains(err.Error(), rep.SHA256) {
		t.Errorf("Install with a wrong digest = %v, want a *BundleDigestError with both digests", err)
	}

	into := filepath.Join(t.TempDir(), "bin")
	var out bytes.Buffer
	o = bundleOptions(into, bundle)
	o.SHA256, o.Progress = rep.SHA256, &out
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatalf("Install with the bundle's digest: %v", err)
	}
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(into, b)); err != nil {
			t.Errorf("%s not installed: %v", b, err)
		}
	}
	stamp, _ := os.ReadFile(filepath.Join(into, stampName))
	if !strings.Contains(string(stamp), "kube-apiserver:bundle-sha256") {
		t.Errorf("stamp %q does not say the bundle's digest vouched for its files", stamp)
	}
	if !strings.Contains(out.String(), rep.SHA256[:12]) {
		t.Errorf("progress does not say what the files were checked against:\n%s", out.String())
	}
}

func sumOfFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum(b)
}
