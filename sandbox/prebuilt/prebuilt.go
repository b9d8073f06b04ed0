// Package prebuilt installs the sandbox's cluster binaries without
// building them: upstream's own release builds (the table in
// hack/cluster: dl.k8s.io, etcd's and kwok's GitHub releases), a mirror
// with upstream's URL layout (an instructor's laptop, a company proxy, a
// directory), or a bundle file that `labmate sandbox bundle` made of a
// bin dir. It writes into the same bin dir as the source build
// (sandbox.Build), under the same lock, and leaves the same kind of
// stamp, so either way gives a bin dir that `labmate sandbox up` takes.
//
// Nothing it installs runs unless a digest labmate carries, or one the
// learner gave on this machine, vouches for it (trust.go): every file,
// from upstream, a mirror or a bundle, is checked against the digests in
// hack/cluster's table (digests.txt) or the learner's (LABMATE_SANDBOX_SHA256SUMS,
// or a bundle's own sha256 given as --sha256); a mirror's checksum files
// and a bundle's manifest vouch for nothing. Only where labmate carries no
// digest for a file does a download from upstream itself, over https,
// fall back to upstream's checksum file beside it, and says so in its
// progress line and the stamp. Files are written into a temporary
// directory inside the bin dir and renamed into place only when whole
// (synced) and vouched for, so a failed or interrupted install leaves the
// bin dir as it was (and the next install removes any temporary directory
// a killed one left). What each installed binary's sha256 was is kept in
// the bin dir (.sha256sums), and Changed says which no longer match.
//
// Progress lines and the errors' texts are Korean (content/ui-prebuilt.toml).
package prebuilt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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

const (
	// EnvMirror names the environment variable that sets a mirror (or a
	// bundle) for every command: what --from takes.
	EnvMirror = "LABMATE_SANDBOX_MIRROR"

	// EnvSums names the environment variable that points at a file in
	// sha256sum's format ("<sha256>  <file name>", the name as upstream
	// names the file, kwok-linux-amd64, or a binary's, etcd) whose
	// digests the learner vouches for on this machine, beside those
	// labmate carries: for a mirror or bundle of binaries built from
	// source. Never the mirror's own.
	EnvSums = "LABMATE_SANDBOX_SHA256SUMS"

	// stampName and lockName are the bin dir's stamp and lock, the same
	// files sandbox.Build uses.
	stampName = ".stamp"
	lockName  = ".lock"

	// tmpPrefix starts the names of this package's temporary directories
	// in the bin dir.
	tmpPrefix = ".fetch."
)

// Options of Install.
type Options struct {
	// BinDir is the bin dir (required).
	BinDir string
	// Binaries are the binaries the bin dir must hold (sandbox.Binaries).
	Binaries []string
	// From is where to install from: "" for upstream, an http(s) URL of a
	// mirror with upstream's layout (see MirrorURL), a directory holding
	// such a mirror, or a bundle (a file, or an http(s) URL ending in
	// .tar.gz or .tgz).
	From string
	// Progress receives progress lines; nil discards them. On a terminal
	// a download shows one updating line.
	Progress io.Writer

	// GOOS and GOARCH: the platform to install for; empty means this one.
	GOOS, GOARCH string
	// Downloads replaces the table (cluster.Downloads), for tests.
	Downloads []cluster.Download
	// HTTPClient replaces the default client (proxy from the environment,
	// a minute for the headers, file:// for directories), for tests.
	HTTPClient *http.Client
	// Retries of a request that fails before its body (default 4), the
	// first wait between them (default 1 s, doubling), tries at a body
	// that is cut (default 4, each resuming), and how long a body may
	// send nothing before it counts as cut (default 30 s).
	Retries      int
	RetryWait    time.Duration
	BodyAttempts int
	StallTimeout time.Duration
	// Now is the clock of the progress line's rate; nil means time.Now.
	Now func() time.Time
	// Terminal forces the updating progress line on or off; nil asks
	// whether Progress is a terminal.
	Terminal *bool

	// SHA256 is the digest the learner gave for a bundle (--sha256): the
	// bundle file's own sha256, which then vouches for every file in it.
	SHA256 string
	// MaxSize bounds a file labmate carries no size for (default 1 GiB;
	// a bundle may be four times that).
	MaxSize int64
	// MaxRetryAfter caps how long a server's Retry-After is obeyed
	// (default 30 s); a longer wait it asks for is said.
	MaxRetryAfter time.Duration
}

func (o Options) withDefaults() Options {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.GOARCH == "" {
		o.GOARCH = runtime.GOARCH
	}
	if o.Retries == 0 {
		o.Retries = 4
	}
	if o.RetryWait == 0 {
		o.RetryWait = time.Second
	}
	if o.BodyAttempts == 0 {
		o.BodyAttempts = 4
	}
	if o.StallTimeout == 0 {
		o.StallTimeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxSize == 0 {
		o.MaxSize = 1 << 30
	}
	if o.MaxRetryAfter == 0 {
		o.MaxRetryAfter = 30 * time.Second
	}
	o.SHA256 = strings.ToLower(strings.TrimSpace(o.SHA256))
	if abs, err := filepath.Abs(o.BinDir); err == nil {
		o.BinDir = abs
	}
	return o
}

func (o Options) meter() *meter {
	terminal := isTerminal(o.Progress)
	if o.Terminal != nil {
		terminal = *o.Terminal
	}
	return &meter{out: o.Progress, terminal: terminal, now: o.Now, interval: 200 * time.Millisecond}
}

// Supported reports whether upstream publishes every binary for
// goos/goarch, so that Install can work with no mirror or bundle.
func Supported(goos, goarch string) bool {
	_, ok := cluster.Downloads(goos, goarch)
	return ok
}

// Unreachable reports whether err says that nothing answered (no network,
// a name that does not resolve, a proxy that does not answer): the case
// where another way (the source build, a bundle) is worth trying.
func Unreachable(err error) bool {
	var ne *NetworkError
	return errors.As(err, &ne)
}

// Kind is what From names.
type Kind int

const (
	Upstream Kind = iota
	Mirror
	Bundle
)

// KindOf says what from names: "" upstream, a URL ending in .tar.gz or
// .tgz or a file a bundle, any other URL or a directory a mirror.
func KindOf(from string) Kind {
	switch {
	case from == "":
		return Upstream
	case strings.HasSuffix(from, ".tar.gz") || strings.HasSuffix(from, ".tgz"):
		return Bundle
	case isURL(from):
		return Mirror
	}
	if fi, err := os.Stat(from); err == nil && fi.IsDir() {
		return Mirror
	}
	return Bundle
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "file://")
}

// MirrorURL is where a mirror at base keeps upstream's file at
// upstreamURL: base, then upstream's host and path, as `wget -x` lays a
// download out. https://dl.k8s.io/release/v1.34.12/bin/linux/amd64/kubectl
// on the mirror http://10.0.0.5:8000 is
// http://10.0.0.5:8000/dl.k8s.io/release/v1.34.12/bin/linux/amd64/kubectl.
// A directory base is a file:// URL.
func MirrorURL(base, upstreamURL string) string {
	u, err := url.Parse(upstreamURL)
	if err != nil {
		return upstreamURL
	}
	if !isURL(base) {
		if abs, err := filepath.Abs(base); err == nil {
			base = abs
		}
		base = "file://" + filepath.ToSlash(base)
	}
	return strings.TrimSuffix(base, "/") + "/" + u.Host + u.Path
}

// Stamp is what the stamp of a bin dir this package filled says: the
// versions (the same fields sandbox.Build writes first), where the
// binaries came from (never with a URL's credentials) and what vouched
// for each ("checked=etcd:carried,kube-apiserver:same-host-checksum,…").
func Stamp(from string, checked map[string]Vouch) string {
	s := fmt.Sprintf("k8s=%s etcd=%s kwok=%s from=%s", cluster.K8sVersion, cluster.EtcdVersion, cluster.KwokVersion, from)
	if len(checked) == 0 {
		return s
	}
	names := make([]string, 0, len(checked))
	for b := range checked {
		names = append(names, b)
	}
	slices.Sort(names)
	for i, b := range names {
		names[i] = b + ":" + string(checked[b])
	}
	return s + " checked=" + strings.Join(names, ",")
}

// Report says what Install did.
type Report struct {
	// Installed are the binaries it put into the bin dir; none when every
	// one was there already.
	Installed []string
	// Downloaded is the bytes it received.
	Downloaded int64
}

// Install puts every missing binary of o.Binaries into o.BinDir from
// o.From (see Options), under the bin dir's lock. A binary already there
// is kept; when all are, Install only says so (another `sandbox up`
// that held the lock may just have installed them).
func Install(ctx context.Context, o Options) (Report, error) {
	o = o.withDefaults()
	kind := KindOf(o.From)
	if o.SHA256 != "" {
		if err := CheckDigest(o.SHA256); err != nil {
			return Report{}, err
		}
		if kind != Bundle {
			return Report{}, fmt.Errorf("%s", content.Msg("prebuilt.err.sha256_not_bundle", "from", Redact(o.From)))
		}
	}
	given, err := loadGiven()
	if err != nil {
		return Report{}, err
	}
	start := o.Now()
	if err := os.MkdirAll(o.BinDir, 0o755); err != nil {
		return Report{}, writeErr(o.BinDir, err)
	}
	lockPath := filepath.Join(o.BinDir, lockName)
	unlock, err := lockfile.Lock(ctx, lockPath, lockfile.Options{
		Waiting: func() { progress(o.Progress, "prebuilt.waiting", "bin_dir", o.BinDir) }})
	if err != nil {
		return Report{}, fmt.Errorf("%s: %w", content.Msg("prebuilt.err.lock", "path", lockPath), err)
	}
	defer unlock()
	removeStale(o.BinDir)

	missing := Missing(o.BinDir, o.Binaries)
	if len(missing) == 0 {
		progress(o.Progress, "prebuilt.present", "bin_dir", o.BinDir)
		return Report{}, nil
	}
	tmp, err := os.MkdirTemp(o.BinDir, tmpPrefix)
	if err != nil {
		return Report{}, writeErr(o.BinDir, err)
	}
	defer os.RemoveAll(tmp)

	in := &installer{o: o, kind: kind, from: Redact(o.From), tmp: tmp, missing: missing, m: o.meter(), given: given,
		checked: map[string]Vouch{}, sums: map[string]string{}}
	in.f = newFetcher(&o, in.m)
	var from string
	switch kind {
	case Bundle:
		from, err = in.fromBundle(ctx)
	default:
		from, err = in.fromDownloads(ctx)
	}
	if err != nil {
		return Report{Installed: in.installed, Downloaded: in.downloaded}, err
	}
	if err := writeRecord(o.BinDir, in.sums); err != nil {
		return Report{Installed: in.installed, Downloaded: in.downloaded}, writeErr(o.BinDir, err)
	}
	if err := lockfile.WriteAtomic(filepath.Join(o.BinDir, stampName), []byte(Stamp(from, in.checked)+"\n"), 0o644); err != nil {
		return Report{Installed: in.installed, Downloaded: in.downloaded}, writeErr(o.BinDir, err)
	}
	took := o.Now().Sub(start).Round(100 * time.Millisecond)
	if in.downloaded > 0 {
		progress(o.Progress, "prebuilt.done", "count", len(in.installed), "bin_dir", o.BinDir, "size", mib(in.downloaded), "elapsed", took)
	} else { // a bundle file: nothing came over the network
		progress(o.Progress, "prebuilt.done_local", "count", len(in.installed), "bin_dir", o.BinDir, "elapsed", took)
	}
	return Report{Installed: in.installed, Downloaded: in.downloaded}, nil
}

// Missing lists the binaries that are not in binDir as executable files.
func Missing(binDir string, binaries []string) []string {
	var out []string
	for _, b := range binaries {
		fi, err := os.Stat(filepath.Join(binDir, b))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			out = append(out, b)
		}
	}
	return out
}

// removeStale removes the temporary directories an install that was
// killed left behind (the lock is held: no install is running).
func removeStale(binDir string) {
	entries, _ := os.ReadDir(binDir)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), tmpPrefix) {
			os.RemoveAll(filepath.Join(binDir, e.Name()))
		}
	}
}

// installer is one Install's state.
type installer struct {
	o          Options
	kind       Kind
	from       string // o.From without credentials, for every line and the stamp
	tmp        string
	missing    []string
	m          *meter
	f          *fetcher
	given      given
	installed  []string
	downloaded int64
	checked    map[string]Vouch  // binary -> what vouched for it
	sums       map[string]string // binary -> its sha256 as installed
	sameHost   map[string][]byte // upstream's checksum files by URL, fetched once
}

// fromDownloads installs from upstream or a mirror: each file that gives
// a missing binary, checked against what vouches for it (vouch).
func (in *installer) fromDownloads(ctx context.Context) (string, error) {
	o := in.o
	downloads := o.Downloads
	if downloads == nil {
		var ok bool
		if downloads, ok = cluster.Downloads(o.GOOS, o.GOARCH); !ok {
			return "", &UnsupportedError{OS: o.GOOS, Arch: o.GOARCH}
		}
	}
	from := "upstream"
	where := content.Msg("prebuilt.from.upstream")
	if o.From != "" {
		from = "mirror " + in.from
		where = content.Msg("prebuilt.from.mirror", "mirror", in.from)
	}
	var todo []cluster.Download
	for _, d := range downloads {
		if slices.ContainsFunc(d.Binaries, func(b string) bool { return slices.Contains(in.missing, b) }) {
			todo = append(todo, d)
		}
	}
	// What nothing could vouch for is refused before a byte is fetched.
	if err := in.vouchable(todo); err != nil {
		return "", err
	}
	progress(o.Progress, "prebuilt.start", "count", len(in.missing), "from", where,
		"k8s", cluster.K8sVersion, "etcd", cluster.EtcdVersion, "kwok", cluster.KwokVersion)
	// Everything is fetched and checked first, and only then moved into
	// the bin dir: a failure on the last file leaves it as it was.
	staged := map[string]string{}
	for _, d := range todo {
		if err := in.download(ctx, d, staged); err != nil {
			return "", err
		}
	}
	var left []string
	for _, b := range in.missing {
		if _, ok := staged[b]; !ok {
			left = append(left, b)
		}
	}
	if len(left) > 0 {
		return "", fmt.Errorf("%s", content.Msg("prebuilt.err.not_in_table", "binaries", strings.Join(left, ", ")))
	}
	return from, in.placeAll(staged)
}

// url is where d is fetched from: upstream, or the mirror's copy.
func (in *installer) url(upstream string) string {
	if in.o.From == "" {
		return upstream
	}
	return MirrorURL(in.o.From, upstream)
}

// download fetches d, checks what vouches for it and stages the missing
// binaries it gives (staged: binary -> checked file in the temporary
// directory).
func (in *installer) download(ctx context.Context, d cluster.Download, staged map[string]string) error {
	src := in.url(d.URL)
	file := filepath.Join(in.tmp, d.Name())
	limit := d.Carried.Size
	if limit <= 0 {
		limit = in.o.MaxSize
	}
	began := in.o.Now()
	got, size, err := in.f.get(ctx, src, file, d.Name(), limit)
	in.downloaded += size
	if err != nil {
		os.Remove(file)
		return err
	}
	v, words, err := in.vouch(ctx, d, src, got, size)
	if err != nil {
		os.Remove(file)
		return err
	}
	in.m.Done("prebuilt.progress.done", size, in.o.Now().Sub(began).Round(100*time.Millisecond), words)
	for _, b := range d.Binaries {
		if !slices.Contains(in.missing, b) {
			continue
		}
		in.checked[b] = v
		if d.Members == nil {
			staged[b], in.sums[b] = file, got
			continue
		}
		limit := d.MemberDigests[b].Size
		if limit <= 0 {
			limit = in.o.MaxSize
		}
		if staged[b], in.sums[b], err = extract(file, d.Members[b], filepath.Join(in.tmp, "member-"+b), limit); err != nil {
			return err
		}
	}
	if d.Members != nil {
		return os.Remove(file)
	}
	return nil
}

// placeAll places every missing binary from staged.
func (in *installer) placeAll(staged map[string]string) error {
	for _, b := range in.missing {
		if err := in.place(staged[b], b); err != nil {
			return err
		}
	}
	return nil
}

// place makes a checked file executable and renames it into the bin dir.
func (in *installer) place(path, binary string) error {
	if err := os.Chmod(path, 0o755); err != nil {
		return writeErr(path, err)
	}
	if err := os.Rename(path, filepath.Join(in.o.BinDir, binary)); err != nil {
		return writeErr(in.o.BinDir, err)
	}
	in.installed = append(in.installed, binary)
	return nil
}

// progress writes one line.
func progress(w io.Writer, key string, kv ...any) {
	fmt.Fprintln(w, content.Msg(key, kv...))
}

// dirOf is path's directory, or path when it is one.
func dirOf(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path
	}
	return filepath.Dir(path)
}
