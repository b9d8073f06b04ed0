package prebuilt

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/hack/cluster"
	"github.com/labhub/labmate/internal/lockfile"
)

// A bundle is a tar.gz of a bin dir for a room without internet (a USB
// stick, a file on the classroom Wi-Fi): first ManifestName, then each
// binary at the top level, nothing else. The manifest says the platform,
// the versions and every file's sha256 and size; Install checks each file
// against it as it unpacks, and installs nothing unless every one is
// there and matches.

// ManifestName is the manifest's name in a bundle.
const ManifestName = "manifest.json"

// Manifest describes a bundle.
type Manifest struct {
	Format   int               `json:"format"` // 1
	OS       string            `json:"os"`
	Arch     string            `json:"arch"`
	Versions map[string]string `json:"versions"` // "kubernetes", "etcd", "kwok"
	// Origin is the stamp of the bin dir the bundle was made of: what
	// built or fetched its binaries.
	Origin string         `json:"origin"`
	Files  []ManifestFile `json:"files"`
}

// ManifestFile is one binary of a bundle.
type ManifestFile struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
}

// versions are the component versions this labmate runs.
func versions() map[string]string {
	return map[string]string{"kubernetes": cluster.K8sVersion, "etcd": cluster.EtcdVersion, "kwok": cluster.KwokVersion}
}

// componentOf is the component a binary belongs to.
func componentOf(binary string) string {
	switch {
	case binary == "etcd":
		return "etcd"
	case strings.HasPrefix(binary, "kwok"):
		return "kwok"
	}
	return "kubernetes"
}

// BundleOptions of WriteBundle.
type BundleOptions struct {
	BinDir   string
	Binaries []string
	// Out is the bundle's path; it appears only when whole.
	Out      string
	Progress io.Writer
}

// BundleReport says what WriteBundle wrote.
type BundleReport struct {
	Manifest Manifest
	Size     int64  // the bundle's bytes
	SHA256   string // the bundle's own sha256, to compare where it lands
}

// WriteBundle packs the bin dir's binaries and a manifest into a bundle
// at o.Out, holding the bin dir's lock (shared: no install or build
// changes the files meanwhile). The bin dir must have a stamp (what
// labmate's build or install writes), or the manifest could not say what
// the binaries are.
func WriteBundle(ctx context.Context, o BundleOptions) (BundleReport, error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	start := time.Now()
	lockPath := filepath.Join(o.BinDir, lockName)
	unlock, err := lockfile.Lock(ctx, lockPath, lockfile.Options{Shared: true,
		Waiting: func() { progress(o.Progress, "prebuilt.waiting", "bin_dir", o.BinDir) }})
	if err != nil {
		return BundleReport{}, fmt.Errorf("%s: %w", content.Msg("prebuilt.err.lock", "path", lockPath), err)
	}
	defer unlock()
	stamp, err := os.ReadFile(filepath.Join(o.BinDir, stampName))
	if err != nil {
		return BundleReport{}, &StampMissingError{BinDir: o.BinDir}
	}
	if missing := Missing(o.BinDir, o.Binaries); len(missing) > 0 {
		return BundleReport{}, &BundleError{Bundle: o.BinDir, Key: "prebuilt.bundle.bin_dir_missing", KV: []any{"binaries", strings.Join(missing, ", ")}}
	}
	m := Manifest{Format: 1, OS: runtime.GOOS, Arch: runtime.GOARCH, Versions: versions(), Origin: strings.TrimSpace(string(stamp))}
	for _, b := range o.Binaries {
		sum, size, err := sumFile(filepath.Join(o.BinDir, b))
		if err != nil {
			return BundleReport{}, err
		}
		m.Files = append(m.Files, ManifestFile{Name: b, Version: versions()[componentOf(b)], SHA256: sum, Size: size})
	}
	progress(o.Progress, "prebuilt.bundle.writing", "count", len(m.Files), "bin_dir", o.BinDir, "out", o.Out)

	if err := os.MkdirAll(filepath.Dir(o.Out), 0o755); err != nil {
		return BundleReport{}, writeErr(o.Out, err)
	}
	out, err := os.CreateTemp(filepath.Dir(o.Out), "."+filepath.Base(o.Out)+".*.tmp")
	if err != nil {
		return BundleReport{}, writeErr(o.Out, err)
	}
	defer os.Remove(out.Name()) // no-op after the rename
	defer out.Close()
	h := sha256.New()
	if err := writeTar(io.MultiWriter(out, h), o.BinDir, m); err != nil {
		return BundleReport{}, writeErr(o.Out, err)
	}
	if err := out.Sync(); err != nil {
		return BundleReport{}, writeErr(o.Out, err)
	}
	fi, err := out.Stat()
	if err != nil {
		return BundleReport{}, err
	}
	if err := out.Close(); err != nil {
		return BundleReport{}, writeErr(o.Out, err)
	}
	if err := os.Rename(out.Name(), o.Out); err != nil {
		return BundleReport{}, writeErr(o.Out, err)
	}
	r := BundleReport{Manifest: m, Size: fi.Size(), SHA256: hex.EncodeToString(h.Sum(nil))}
	progress(o.Progress, "prebuilt.bundle.done", "out", o.Out, "size", mib(r.Size), "sha256", r.SHA256,
		"elapsed", time.Since(start).Round(100*time.Millisecond))
	return r, nil
}

// writeTar writes the bundle: the manifest, then each file. gzip's
// fastest level: Go binaries shrink about as much at level 1 as at the
// default, in a fraction of the time.
func writeTar(w io.Writer, binDir string, m Manifest) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	manifest = append(manifest, '\n')
	now := time.Now().UTC().Truncate(time.Second)
	if err := tw.WriteHeader(&tar.Header{Name: ManifestName, Mode: 0o644, Size: int64(len(manifest)), ModTime: now, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(manifest); err != nil {
		return err
	}
	for _, f := range m.Files {
		if err := addFile(tw, filepath.Join(binDir, f.Name), f, now); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func addFile(tw *tar.Writer, path string, f ManifestFile, now time.Time) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := tw.WriteHeader(&tar.Header{Name: f.Name, Mode: 0o755, Size: f.Size, ModTime: now, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	// A file that grew or shrank since it was hashed fails here (the lock
	// makes that a file changed behind labmate's back).
	_, err = io.CopyN(tw, in, f.Size)
	return err
}

// sumFile is path's sha256 and size.
func sumFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// fromBundle installs the missing binaries from the bundle o.From (a
// file, or a URL fetched first into the temporary directory).
func (in *installer) fromBundle(ctx context.Context) (string, error) {
	progress(in.o.Progress, "prebuilt.start", "count", len(in.missing), "from", content.Msg("prebuilt.from.bundle", "bundle", in.o.From),
		"k8s", cluster.K8sVersion, "etcd", cluster.EtcdVersion, "kwok", cluster.KwokVersion)
	path := in.o.From
	if isURL(path) {
		path = filepath.Join(in.tmp, "bundle.tar.gz")
		began := in.o.Now()
		_, size, err := in.f.get(ctx, in.o.From, path, filepath.Base(in.o.From))
		in.downloaded += size
		if err != nil {
			return "", err
		}
		in.m.Done("prebuilt.progress.fetched", size, in.o.Now().Sub(began).Round(100*time.Millisecond))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", &BundleError{Bundle: in.o.From, Key: "prebuilt.bundle.open", KV: []any{"err", err}}
	}
	defer f.Close()
	h := sha256.New()
	checked, err := in.unpack(io.TeeReader(f, h))
	if err != nil {
		return "", err
	}
	// Drain what follows the tar's end, so the sha256 is the file's.
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	if err := in.placeAll(checked); err != nil {
		return "", err
	}
	return "bundle " + in.o.From + " sha256=" + hex.EncodeToString(h.Sum(nil)), nil
}

// unpack reads a bundle: its manifest, checked against this labmate and
// platform, then each file into the temporary directory, checked against
// the manifest. It returns the checked files by binary name; it fails
// (and the caller installs nothing) unless every missing binary is there
// and whole.
func (in *installer) unpack(r io.Reader) (map[string]string, error) {
	bad := func(key string, kv ...any) error { return &BundleError{Bundle: in.o.From, Key: key, KV: kv} }
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, bad("prebuilt.bundle.not_bundle", "err", err)
	}
	tr := tar.NewReader(zr)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != ManifestName {
		return nil, bad("prebuilt.bundle.no_manifest")
	}
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&m); err != nil {
		return nil, bad("prebuilt.bundle.bad_manifest", "err", err)
	}
	if err := in.checkManifest(m); err != nil {
		return nil, err
	}
	want := map[string]ManifestFile{}
	for _, f := range m.Files {
		want[f.Name] = f
	}
	checked := map[string]string{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bad("prebuilt.bundle.broken", "err", err)
		}
		f, ok := want[hdr.Name]
		if !ok || hdr.Typeflag != tar.TypeReg {
			return nil, bad("prebuilt.bundle.stray", "name", hdr.Name)
		}
		if _, dup := checked[f.Name]; dup {
			return nil, bad("prebuilt.bundle.stray", "name", hdr.Name)
		}
		dst := filepath.Join(in.tmp, "bundle-"+f.Name)
		sum, n, err := copyHashed(dst, io.LimitReader(tr, f.Size+1))
		if err != nil {
			var df *DiskFullError
			if errors.As(err, &df) {
				return nil, err
			}
			return nil, bad("prebuilt.bundle.broken", "err", err)
		}
		if sum != f.SHA256 || n != f.Size {
			os.Remove(dst)
			return nil, &ChecksumError{File: f.Name, URL: in.o.From, Want: f.SHA256, Got: sum, Source: ManifestName}
		}
		checked[f.Name] = dst
	}
	for _, b := range in.missing {
		if _, ok := checked[b]; !ok {
			return nil, bad("prebuilt.bundle.lacks", "binary", b)
		}
	}
	return checked, nil
}

// checkManifest refuses a bundle for another platform, other versions or
// without every binary this labmate needs.
func (in *installer) checkManifest(m Manifest) error {
	bad := func(key string, kv ...any) error { return &BundleError{Bundle: in.o.From, Key: key, KV: kv} }
	if m.Format != 1 {
		return bad("prebuilt.bundle.format", "format", m.Format)
	}
	if m.OS != in.o.GOOS || m.Arch != in.o.GOARCH {
		return bad("prebuilt.bundle.platform", "have", m.OS+"/"+m.Arch, "want", in.o.GOOS+"/"+in.o.GOARCH)
	}
	for comp, v := range versions() {
		if m.Versions[comp] != v {
			return bad("prebuilt.bundle.version", "component", comp, "have", m.Versions[comp], "want", v)
		}
	}
	for _, b := range in.missing {
		if !slices.ContainsFunc(m.Files, func(f ManifestFile) bool { return f.Name == b }) {
			return bad("prebuilt.bundle.lacks", "binary", b)
		}
	}
	return nil
}

// copyHashed writes r into the new file dst and returns its sha256 and
// size.
func copyHashed(dst string, r io.Reader) (string, int64, error) {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", 0, writeErr(dst, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if diskFull(err) {
			return "", n, writeErr(dst, err)
		}
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// extract writes the tarball's member (a checked tarball) into dst.
func extract(tarball, member, dst string) (string, error) {
	f, err := os.Open(tarball)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tarball, err)
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("%s", content.Msg("prebuilt.err.no_member", "member", member, "file", filepath.Base(tarball)))
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", tarball, err)
		}
		if hdr.Name != member || hdr.Typeflag != tar.TypeReg {
			continue
		}
		if _, _, err := copyHashed(dst, tr); err != nil {
			return "", err
		}
		return dst, nil
	}
}
