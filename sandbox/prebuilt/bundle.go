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
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/hack/cluster"
	"github.com/labhub/labmate/internal/lockfile"
)

// A bundle is a tar.gz of a bin dir for a room without internet (a USB
// stick, a file on the classroom Wi-Fi): first ManifestName, then each
// binary at the top level under its exact name, nothing else. The
// manifest says the platform, the versions and every file's sha256 and
// size. A bundle is not its own root of trust: its manifest vouches for
// nothing. Install reads it twice: first every header and the manifest,
// refusing the whole bundle for any name that is not exactly a binary's,
// any entry that is not a regular file or comes twice, any size over its
// limit, and any file that neither a digest labmate carries nor one the
// learner gave vouches for (the bundle's own sha256, --sha256); only
// then, writing nowhere but the bin dir's temporary directory, each
// binary, checked against the manifest, and the bundle's sha256 again
// (the file did not change between the two reads).

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
	m := Manifest{Format: 1, OS: runtime.GOOS, Arch: runtime.GOARCH, Versions: versions(), Origin: redactStamp(strings.TrimSpace(string(stamp)))}
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
	// A bundle is for others to read: served from the instructor's
	// laptop (a web server of another user), copied from a shared
	// folder. CreateTemp made it 0600.
	if err := out.Chmod(0o644); err != nil {
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
		"elapsed", time.Since(start).Round(100*time.Millisecond), "command", UpCommand(o.Out, r.SHA256))
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

// UpCommand is the command that installs the bundle at path, vouched
// for by its sha256: what `sandbox bundle` prints for the learners.
func UpCommand(path, sha256 string) string {
	return "labmate sandbox up --from " + path + " --sha256 " + sha256
}

// redactStamp is a stamp with the credentials of any URL in it removed.
func redactStamp(stamp string) string {
	f := strings.Fields(stamp)
	for i := range f {
		f[i] = Redact(f[i])
	}
	return strings.Join(f, " ")
}

// fromBundle installs the missing binaries from the bundle o.From (a
// file, or a URL fetched first into the temporary directory).
func (in *installer) fromBundle(ctx context.Context) (string, error) {
	progress(in.o.Progress, "prebuilt.start", "count", len(in.missing), "from", content.Msg("prebuilt.from.bundle", "bundle", in.from),
		"k8s", cluster.K8sVersion, "etcd", cluster.EtcdVersion, "kwok", cluster.KwokVersion)
	path := in.o.From
	if isURL(path) {
		path = filepath.Join(in.tmp, "bundle.tar.gz")
		began := in.o.Now()
		_, size, err := in.f.get(ctx, in.o.From, path, filepath.Base(in.from), 4*in.o.MaxSize)
		in.downloaded += size
		if err != nil {
			return "", err
		}
		in.m.Done("prebuilt.progress.fetched", size, in.o.Now().Sub(began).Round(100*time.Millisecond), "")
	}
	// First read: every header and the manifest, nothing written.
	m, whole, err := in.scan(path)
	if err != nil {
		return "", err
	}
	if in.o.SHA256 != "" && whole != in.o.SHA256 {
		return "", &BundleDigestError{Bundle: in.from, Want: in.o.SHA256, Got: whole}
	}
	if err := in.vouchBundle(m, whole); err != nil {
		return "", err
	}
	// Second read: the binaries, into the temporary directory.
	checked, again, err := in.unpack(path, m)
	if err != nil {
		return "", err
	}
	if again != whole {
		return "", &BundleError{Bundle: in.from, Key: "prebuilt.bundle.changed"}
	}
	if err := in.placeAll(checked); err != nil {
		return "", err
	}
	return "bundle " + in.from + " sha256=" + whole, nil
}

// bundleLimit is the most bytes binary may have in a bundle: the size
// labmate carries for it, else the generous cap.
func (in *installer) bundleLimit(binary string) int64 {
	if d, _ := binaryDigest(in.o.GOOS, in.o.GOARCH, binary); d.Size > 0 {
		return d.Size
	}
	return in.o.MaxSize
}

// open reads the bundle at path as a tar, hashing the whole file.
func (in *installer) open(path string) (*os.File, hash.Hash, *tar.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, &BundleError{Bundle: in.from, Key: "prebuilt.bundle.open", KV: []any{"err", err}}
	}
	h := sha256.New()
	zr, err := gzip.NewReader(io.TeeReader(f, h))
	if err != nil {
		f.Close()
		return nil, nil, nil, &BundleError{Bundle: in.from, Key: "prebuilt.bundle.not_bundle", KV: []any{"err", err}}
	}
	return f, h, tar.NewReader(zr), nil
}

// drain reads what follows the tar's end into h, so that the sha256 is
// the whole file's.
func drain(f *os.File, h hash.Hash) (string, error) {
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// scan is the first read: the manifest, checked against this labmate and
// platform, and every entry's header against it. It writes nothing and
// returns the manifest and the bundle's sha256.
func (in *installer) scan(path string) (Manifest, string, error) {
	bad := func(key string, kv ...any) error { return &BundleError{Bundle: in.from, Key: key, KV: kv} }
	f, h, tr, err := in.open(path)
	if err != nil {
		return Manifest{}, "", err
	}
	defer f.Close()
	hdr, err := tr.Next()
	if err != nil || hdr.Name != ManifestName || hdr.Typeflag != tar.TypeReg || hdr.Size > 1<<20 {
		return Manifest{}, "", bad("prebuilt.bundle.no_manifest")
	}
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&m); err != nil {
		return Manifest{}, "", bad("prebuilt.bundle.bad_manifest", "err", err)
	}
	if err := in.checkManifest(m); err != nil {
		return Manifest{}, "", err
	}
	want := map[string]ManifestFile{}
	for _, f := range m.Files {
		want[f.Name] = f
	}
	seen := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Manifest{}, "", bad("prebuilt.bundle.broken", "err", err)
		}
		f, ok := want[hdr.Name]
		switch {
		case !ok && slices.Contains(in.o.Binaries, hdr.Name):
			return Manifest{}, "", bad("prebuilt.bundle.stray", "name", hdr.Name)
		case !ok:
			return Manifest{}, "", bad("prebuilt.bundle.bad_name", "name", strconv.Quote(hdr.Name))
		case hdr.Typeflag != tar.TypeReg:
			return Manifest{}, "", bad("prebuilt.bundle.bad_entry", "name", hdr.Name)
		case seen[hdr.Name]:
			return Manifest{}, "", bad("prebuilt.bundle.duplicate", "name", hdr.Name)
		case hdr.Size != f.Size:
			return Manifest{}, "", bad("prebuilt.bundle.size", "name", hdr.Name, "have", hdr.Size, "want", f.Size)
		}
		seen[hdr.Name] = true
	}
	for _, b := range in.missing {
		if !seen[b] {
			return Manifest{}, "", bad("prebuilt.bundle.lacks", "binary", b)
		}
	}
	whole, err := drain(f, h)
	if err != nil {
		return Manifest{}, "", bad("prebuilt.bundle.broken", "err", err)
	}
	return m, whole, nil
}

// vouchBundle decides what vouches for each missing binary of the
// bundle, from what its manifest says the file is (the second read
// checks that it is): the bundle's own sha256 the learner gave, else a
// digest labmate carries, else one in the learner's sums file. Any file
// none vouches for refuses the bundle.
func (in *installer) vouchBundle(m Manifest, whole string) error {
	var unvouched []UnvouchedFile
	for _, f := range m.Files {
		if !slices.Contains(in.missing, f.Name) {
			continue
		}
		d, names := binaryDigest(in.o.GOOS, in.o.GOARCH, f.Name)
		switch {
		case in.o.SHA256 != "" && whole == in.o.SHA256:
			in.checked[f.Name] = VouchBundle
		case d.SHA256 != "" && d.SHA256 == f.SHA256 && (d.Size == 0 || d.Size == f.Size):
			in.checked[f.Name] = VouchCarried
		case in.given.has(f.SHA256, names...):
			in.checked[f.Name] = VouchGiven
		default:
			unvouched = append(unvouched, UnvouchedFile{Name: f.Name, SHA256: f.SHA256, Why: d.Unread})
		}
	}
	if len(unvouched) > 0 {
		return &UnvouchedError{From: in.from, Bundle: true, Files: unvouched, Env: EnvSums}
	}
	return nil
}

// unpack is the second read: each missing binary into the temporary
// directory under its exact name, checked against the manifest. It
// returns the checked files by binary and the bundle's sha256.
func (in *installer) unpack(path string, m Manifest) (map[string]string, string, error) {
	bad := func(key string, kv ...any) error { return &BundleError{Bundle: in.from, Key: key, KV: kv} }
	f, h, tr, err := in.open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
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
			return nil, "", bad("prebuilt.bundle.broken", "err", err)
		}
		mf, ok := want[hdr.Name]
		if hdr.Name == ManifestName || !slices.Contains(in.missing, hdr.Name) {
			continue
		}
		if !ok || hdr.Typeflag != tar.TypeReg || checked[mf.Name] != "" || hdr.Size != mf.Size {
			return nil, "", &BundleError{Bundle: in.from, Key: "prebuilt.bundle.changed"} // the first read saw otherwise
		}
		// mf.Name is exactly one of the binaries (checkManifest): no
		// path, nothing outside the temporary directory.
		dst := filepath.Join(in.tmp, "bundle-"+mf.Name)
		sum, n, err := copyHashed(dst, io.LimitReader(tr, mf.Size+1))
		if err != nil {
			var df *DiskFullError
			if errors.As(err, &df) {
				return nil, "", err
			}
			return nil, "", bad("prebuilt.bundle.broken", "err", err)
		}
		if sum != mf.SHA256 || n != mf.Size {
			return nil, "", &ChecksumError{File: mf.Name, URL: in.from, Want: mf.SHA256, Got: sum, Source: content.Msg("prebuilt.source.manifest")}
		}
		checked[mf.Name] = dst
		in.sums[mf.Name] = sum
		progress(in.o.Progress, "prebuilt.progress.unpacked", "file", mf.Name, "size", mib(n), "checked", in.bundleWords(mf.Name))
	}
	for _, b := range in.missing {
		if checked[b] == "" {
			return nil, "", bad("prebuilt.bundle.lacks", "binary", b)
		}
	}
	whole, err := drain(f, h)
	if err != nil {
		return nil, "", bad("prebuilt.bundle.broken", "err", err)
	}
	return checked, whole, nil
}

// bundleWords says what a bundle's binary was checked against.
func (in *installer) bundleWords(binary string) string {
	switch v := in.checked[binary]; v {
	case VouchBundle:
		return v.words(in.o.SHA256)
	case VouchGiven:
		return v.words(in.given.path)
	default:
		d, _ := binaryDigest(in.o.GOOS, in.o.GOARCH, binary)
		return v.words(d.Source)
	}
}

// checkManifest refuses a bundle for another platform, other versions,
// without every binary this labmate needs, or whose manifest names
// anything but exactly the binaries, each once, within its size limit.
func (in *installer) checkManifest(m Manifest) error {
	bad := func(key string, kv ...any) error { return &BundleError{Bundle: in.from, Key: key, KV: kv} }
	if m.Format != 1 {
		return bad("prebuilt.bundle.format", "format", m.Format)
	}
	seen := map[string]bool{}
	for _, f := range m.Files {
		switch {
		case !slices.Contains(in.o.Binaries, f.Name):
			return bad("prebuilt.bundle.bad_name", "name", strconv.Quote(f.Name))
		case seen[f.Name]:
			return bad("prebuilt.bundle.duplicate", "name", f.Name)
		case f.Size <= 0 || f.Size > in.bundleLimit(f.Name) || CheckDigest(f.SHA256) != nil:
			return bad("prebuilt.bundle.bad_file", "name", f.Name, "size", f.Size, "limit", mib(in.bundleLimit(f.Name)))
		}
		seen[f.Name] = true
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
		if !seen[b] {
			return bad("prebuilt.bundle.lacks", "binary", b)
		}
	}
	return nil
}

// copyHashed writes r into the new file dst and returns its sha256 and
// size once it is written, synced and closed.
func copyHashed(dst string, r io.Reader) (string, int64, error) {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", 0, writeErr(dst, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), r)
	if err == nil {
		err = out.Sync()
	}
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

// extract writes the tarball's member (a checked tarball) into dst, at
// most limit bytes, and returns dst and its sha256.
func extract(tarball, member, dst string, limit int64) (string, string, error) {
	f, err := os.Open(tarball)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", tarball, err)
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", "", fmt.Errorf("%s", content.Msg("prebuilt.err.no_member", "member", member, "file", filepath.Base(tarball)))
		}
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", tarball, err)
		}
		if hdr.Name != member || hdr.Typeflag != tar.TypeReg {
			continue
		}
		if hdr.Size > limit {
			return "", "", &TooLargeError{URL: filepath.Base(tarball) + "#" + member, Limit: limit}
		}
		sum, _, err := copyHashed(dst, io.LimitReader(tr, limit))
		if err != nil {
			return "", "", err
		}
		return dst, sum, nil
	}
}
