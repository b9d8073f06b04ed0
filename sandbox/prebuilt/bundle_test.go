package prebuilt

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/hack/cluster"
)

// filledBinDir is a bin dir filled from a fake mirror, as `sandbox up`
// leaves it.
func filledBinDir(t *testing.T) (*fakeMirror, string) {
	t.Helper()
	m := newFakeMirror(t, 128<<10)
	bin := t.TempDir()
	if _, err := Install(context.Background(), m.options(bin, io.Discard)); err != nil {
		t.Fatal(err)
	}
	return m, bin
}

// bundleOptions installs from the bundle at from for linux/amd64.
func bundleOptions(binDir, from string) Options {
	return Options{BinDir: binDir, Binaries: binaries, From: from, GOOS: "linux", GOARCH: "amd64", Progress: io.Discard}
}

// A bundle of a bin dir installs into an empty one the same files, from
// the file or from a URL, and says so in the stamp; the manifest lists
// every binary with its version and sha256.
func TestBundleRoundTrip(t *testing.T) {
	m, bin := filledBinDir(t)
	out := filepath.Join(t.TempDir(), "usb", "labmate-cluster.tar.gz") // its directory made too
	var progress bytes.Buffer
	rep, err := WriteBundle(context.Background(), BundleOptions{BinDir: bin, Binaries: binaries, Out: out, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Size() != rep.Size || !strings.Contains(progress.String(), rep.SHA256) {
		t.Fatalf("bundle %v (%v), report %+v, progress %s", fi, err, rep, progress.String())
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("bundle mode %v, want 0644: others serve and copy it", fi.Mode().Perm())
	}
	if len(rep.Manifest.Files) != len(binaries) || rep.Manifest.Versions["kubernetes"] != cluster.K8sVersion ||
		!strings.HasPrefix(rep.Manifest.Origin, "k8s="+cluster.K8sVersion) {
		t.Errorf("manifest %+v", rep.Manifest)
	}
	for _, f := range rep.Manifest.Files {
		if f.SHA256 != sum(m.content[f.Name]) || f.Size != int64(len(m.content[f.Name])) {
			t.Errorf("manifest file %+v does not describe %s", f, f.Name)
		}
	}

	into := t.TempDir()
	o := bundleOptions(into, out)
	o.SHA256 = rep.SHA256 // the binaries are made up: labmate carries none of their digests
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	m.checkInstalled(t, into)
	stamp, _ := os.ReadFile(filepath.Join(into, stampName))
	if !strings.Contains(string(stamp), "bundle "+out+" sha256="+rep.SHA256) {
		t.Errorf("stamp %q does not name the bundle and its sha256 %s", stamp, rep.SHA256)
	}

	// The same bundle served over HTTP (the classroom Wi-Fi).
	data, _ := os.ReadFile(out)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	defer srv.Close()
	into = t.TempDir()
	o = bundleOptions(into, srv.URL+"/labmate-cluster.tar.gz")
	o.SHA256 = rep.SHA256
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	m.checkInstalled(t, into)
}

// rewrite writes a copy of the bundle at path with change applied to
// each entry (name, content) -> content; the manifest is the first.
func rewrite(t *testing.T, path string, change func(name string, data []byte) []byte) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		data = change(hdr.Name, data)
		if data == nil {
			continue
		}
		hdr.Size = int64(len(data))
		tw.WriteHeader(hdr)
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	out := filepath.Join(t.TempDir(), "tampered.tar.gz")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// A bundle whose file differs from its manifest, or that is for another
// platform or version, or lacks a binary, or is not a bundle, is refused
// with the reason, and the bin dir is as it was: even one whose own
// digest the learner gave (vouching for the bundle as it is).
func TestTamperedBundleIsRefused(t *testing.T) {
	_, bin := filledBinDir(t)
	good := filepath.Join(t.TempDir(), "good.tar.gz")
	if _, err := WriteBundle(context.Background(), BundleOptions{BinDir: bin, Binaries: binaries, Out: good}); err != nil {
		t.Fatal(err)
	}
	editManifest := func(edit func(*Manifest)) func(string, []byte) []byte {
		return func(name string, data []byte) []byte {
			if name != ManifestName {
				return data
			}
			var m Manifest
			json.Unmarshal(data, &m)
			edit(&m)
			out, _ := json.Marshal(m)
			return out
		}
	}
	notBundle := filepath.Join(t.TempDir(), "notes.tgz")
	os.WriteFile(notBundle, []byte("hello"), 0o644)
	for _, tc := range []struct {
		name, bundle string
		checksum     bool   // a *ChecksumError
		reason       string // else a *BundleError with this key
	}{
		{"one byte changed", rewrite(t, good, func(name string, data []byte) []byte {
			if name == "kube-scheduler" {
				data[len(data)/2] ^= 1
			}
			return data
		}), true, ""},
		{"a file cut short", rewrite(t, good, func(name string, data []byte) []byte {
			if name == "etcd" {
				return data[:len(data)-1]
			}
			return data
		}), false, "prebuilt.bundle.size"},
		{"another platform", rewrite(t, good, editManifest(func(m *Manifest) { m.Arch = "arm64" })), false, "prebuilt.bundle.platform"},
		{"another version", rewrite(t, good, editManifest(func(m *Manifest) { m.Versions["kubernetes"] = "v1.33.0" })), false, "prebuilt.bundle.version"},
		{"a binary missing", rewrite(t, good, func(name string, data []byte) []byte {
			if name == "kwok" {
				return nil
			}
			return data
		}), false, "prebuilt.bundle.lacks"},
		// kubectl's entry stays, the manifest no longer lists it (and
		// the bin dir has kubectl: the manifest need not).
		{"a stray file", rewrite(t, good, editManifest(func(m *Manifest) {
			m.Files = slices.DeleteFunc(m.Files, func(f ManifestFile) bool { return f.Name == "kubectl" })
		})), false, "prebuilt.bundle.stray"},
		{"not a bundle", notBundle, false, "prebuilt.bundle.not_bundle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			into := t.TempDir()
			os.WriteFile(filepath.Join(into, "kubectl"), []byte("mine"), 0o755)
			before := snapshot(t, into)
			o := bundleOptions(into, tc.bundle)
			o.SHA256 = sumOfFile(t, tc.bundle)
			_, err := Install(context.Background(), o)
			var ce *ChecksumError
			var be *BundleError
			switch {
			case tc.checksum && !errors.As(err, &ce):
				t.Fatalf("Install = %v, want a *ChecksumError", err)
			case tc.checksum && (!strings.Contains(ce.Source, ManifestName) || ce.Want == ce.Got):
				t.Errorf("ChecksumError %+v", ce)
			case !tc.checksum && (!errors.As(err, &be) || be.Key != tc.reason):
				t.Fatalf("Install = %v, want a *BundleError %s", err, tc.reason)
			}
			if after := snapshot(t, into); !equal(before, after) {
				t.Errorf("bin dir changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// A bin dir without a stamp (filled by hand) makes no bundle: nothing
// would say what its binaries are.
func TestBundleNeedsAStamp(t *testing.T) {
	_, bin := filledBinDir(t)
	os.Remove(filepath.Join(bin, stampName))
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	_, err := WriteBundle(context.Background(), BundleOptions{BinDir: bin, Binaries: binaries, Out: out})
	var se *StampMissingError
	if !errors.As(err, &se) {
		t.Fatalf("WriteBundle = %v, want a *StampMissingError", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a bundle was written anyway (%v)", err)
	}
}
