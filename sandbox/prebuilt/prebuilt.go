// Package prebuilt installs the sandbox's cluster binaries without
// building them: upstream's own release builds (the table in
// hack/cluster: dl.k8s.io, etcd's and kwok's GitHub releases), a mirror
// with upstream's URL layout (an instructor's laptop, a company proxy, a
// directory), or a bundle file that `labmate sandbox bundle` made of a
// bin dir. It writes into the same bin dir as the source build
// (sandbox.Build), under the same lock, and leaves the same kind of
// stamp, so either way gives a bin dir that `labmate sandbox up` takes.
//
// Every file is checked before anything of it is made executable or
// moved into the bin dir: against the sha256 upstream publishes beside
// it, the one pinned in the table where upstream publishes none, or a
// bundle's manifest. Files are written into a temporary directory inside
// the bin dir and renamed into place only when whole and checked, so a
// failed or interrupted install leaves the bin dir as it was (and the
// next install removes any temporary directory a killed one left).
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
	// names the file: kwok-linux-amd64) whose digests are used instead of
	// the table's pins and upstream's checksum files for the files it
	// lists: for a mirror of binaries built elsewhere, trusted on this
	// machine, never by the mirror.
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
// versions (the same fields sandbox.Build writes first) and where the
// binaries came from.
func Stamp(from string) string {
	return fmt.Sprintf("k8s=%s etcd=%s kwok=%s from=%s", cluster.K8sVersion, cluster.EtcdVersion, cluster.KwokVersion, from)
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

	in := &installer{o: o, tmp: tmp, missing: missing, m: o.meter()}
	in.f = newFetcher(&o, in.m)
	var from string
	switch KindOf(o.From) {
	case Bundle:
		from, err = in.fromBundle(ctx)
	default:
		from, err = in.fromDownloads(ctx)
	}
	if err != nil {
		return Report{Installed: in.installed, Downloaded: in.downloaded}, err
	}
	if err := lockfile.WriteAtomic(filepath.Join(o.BinDir, stampName), []byte(Stamp(from)+"\n"), 0o644); err != nil {
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
	tmp        string
	missing    []string
	m          *meter
	f          *fetcher
	installed  []string
	downloaded int64
	sums       map[string][]byte // checksum files by URL, fetched once
	local      map[string]string // EnvSums' digests by file name
}

// fromDownloads installs from upstream or a mirror: each file that gives
// a missing binary, its checksum first.
func (in *installer) fromDownloads(ctx context.Context) (string, error) {
	o := in.o
	downloads := o.Downloads
	if downloads == nil {
		var ok bool
		if downloads, ok = cluster.Downloads(o.GOOS, o.GOARCH); !ok {
			return "", &UnsupportedError{OS: o.GOOS, Arch: o.GOARCH}
		}
	}
	if err := in.loadLocalSums(); err != nil {
		return "", err
	}
	from := "upstream"
	where := content.Msg("prebuilt.from.upstream")
	if o.From != "" {
		from = "mirror " + o.From
		where = content.Msg("prebuilt.from.mirror", "mirror", o.From)
	}
	var todo []cluster.Download
	for _, d := range downloads {
		if slices.ContainsFunc(d.Binaries, func(b string) bool { return slices.Contains(in.missing, b) }) {
			todo = append(todo, d)
		}
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

// download fetches d, checks it and stages the missing binaries it
// gives (staged: binary -> checked file in the temporary directory).
func (in *installer) download(ctx context.Context, d cluster.Download, staged map[string]string) error {
	want, source, err := in.expected(ctx, d)
	if err != nil {
		return err
	}
	src := in.url(d.URL)
	file := filepath.Join(in.tmp, d.Name())
	began := in.o.Now()
	got, size, err := in.f.get(ctx, src, file, d.Name())
	in.downloaded += size
	if err != nil {
		os.Remove(file)
		return err
	}
	if got != want {
		os.Remove(file)
		return &ChecksumError{File: d.Name(), URL: src, Want: want, Got: got, Source: source}
	}
	in.m.Done("prebuilt.progress.done", size, in.o.Now().Sub(began).Round(100*time.Millisecond))
	for _, b := range d.Binaries {
		if !slices.Contains(in.missing, b) {
			continue
		}
		if d.Members == nil {
			staged[b] = file
			continue
		}
		if staged[b], err = extract(file, d.Members[b], filepath.Join(in.tmp, "member-"+b)); err != nil {
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

// expected is d's sha256 and where it comes from: EnvSums' file, the
// table's pin, or upstream's (the mirror's) checksum file.
func (in *installer) expected(ctx context.Context, d cluster.Download) (sum, source string, err error) {
	if s, ok := in.local[d.Name()]; ok {
		return s, os.Getenv(EnvSums), nil
	}
	if d.Checksum.URL == "" {
		return d.Checksum.SHA256, content.Msg("prebuilt.pinned", "source", d.Checksum.PinSource), nil
	}
	src := in.url(d.Checksum.URL)
	data, ok := in.sums[src]
	if !ok {
		if data, err = in.f.small(ctx, src); err != nil {
			return "", "", err
		}
		if in.sums == nil {
			in.sums = map[string][]byte{}
		}
		in.sums[src] = data
	}
	name := ""
	if d.Checksum.List {
		name = d.Name()
	}
	if sum = parseSum(data, name); len(sum) != 64 {
		return "", "", fmt.Errorf("%s", content.Msg("prebuilt.err.no_sum", "file", d.Name(), "url", src))
	}
	return sum, src, nil
}

// loadLocalSums reads EnvSums' file, if set.
func (in *installer) loadLocalSums() error {
	path := os.Getenv(EnvSums)
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", EnvSums, err)
	}
	in.local = map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			in.local[strings.TrimPrefix(f[1], "*")] = strings.ToLower(f[0])
		}
	}
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
