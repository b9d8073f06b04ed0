package prebuilt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/hack/cluster"
)

// lockedBuffer is a progress writer two installs may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// From an empty bin dir, every binary comes from the mirror, checked, as
// the mirror has it; the stamp says from where; nothing temporary stays;
// a second install finds them there and asks for nothing.
func TestInstallFromMirror(t *testing.T) {
	m := newFakeMirror(t, 300<<10)
	bin := filepath.Join(t.TempDir(), "bin")
	var out bytes.Buffer
	rep, err := Install(context.Background(), m.options(bin, &out))
	if err != nil {
		t.Fatalf("Install: %v\n%s", err, out.String())
	}
	m.checkInstalled(t, bin)
	if len(rep.Installed) != len(binaries) || rep.Downloaded < int64(len(binaries))*300<<10 {
		t.Errorf("report %+v", rep)
	}
	stamp, _ := os.ReadFile(filepath.Join(bin, stampName))
	given := map[string]Vouch{}
	for _, b := range binaries {
		given[b] = VouchGiven
	}
	if want := Stamp("mirror "+m.srv.URL, given); strings.TrimSpace(string(stamp)) != want {
		t.Errorf("stamp %q, want %q", stamp, want)
	}
	if !strings.HasPrefix(string(stamp), "k8s="+cluster.K8sVersion+" etcd="+cluster.EtcdVersion+" kwok="+cluster.KwokVersion+" ") {
		t.Errorf("stamp %q does not start with the versions as sandbox.Build's does", stamp)
	}
	for name := range snapshot(t, bin) {
		if strings.HasPrefix(name, tmpPrefix) {
			t.Errorf("left behind: %s", name)
		}
	}
	text := out.String()
	for _, want := range []string{"kube-apiserver", "etcd-" + cluster.EtcdVersion + "-linux-amd64.tar.gz", "kwokctl-linux-amd64",
		VouchGiven.words(os.Getenv(EnvSums)), m.srv.URL} {
		if !strings.Contains(text, want) {
			t.Errorf("progress lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\r") {
		t.Errorf("plain progress (not a terminal) has a carriage return:\n%q", text)
	}

	before := m.total()
	out.Reset()
	if rep, err := Install(context.Background(), m.options(bin, &out)); err != nil || len(rep.Installed) != 0 {
		t.Fatalf("second Install: %+v, %v", rep, err)
	}
	if m.total() != before {
		t.Errorf("a second install with every binary there made %d requests", m.total()-before)
	}
	if want := content.Msg("prebuilt.present", "bin_dir", bin); strings.TrimSpace(out.String()) != want {
		t.Errorf("second Install said %q, want %q", out.String(), want)
	}
}

// Only the missing binaries are fetched; the others are kept as they are.
func TestInstallOnlyWhatIsMissing(t *testing.T) {
	m := newFakeMirror(t, 64<<10)
	bin := t.TempDir()
	for _, b := range binaries {
		if b != "kubectl" {
			os.WriteFile(filepath.Join(bin, b), []byte("mine"), 0o755)
		}
	}
	rep, err := Install(context.Background(), m.options(bin, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Installed, ",") != "kubectl" {
		t.Errorf("installed %v, want kubectl alone", rep.Installed)
	}
	if got, _ := os.ReadFile(filepath.Join(bin, "kube-apiserver")); string(got) != "mine" {
		t.Error("a binary that was there was replaced")
	}
	if n := m.count(m.requests, "kube-apiserver"); n != 0 {
		t.Errorf("kube-apiserver, present, was requested %d times", n)
	}
}

// A file whose sha256 is not the one expected is refused: against the
// digest labmate carries (kwok's, etcd's tarball), a *ChecksumError that
// names the file, the URL, both digests and where the expected one came
// from; a file labmate carries none for and whose digest the learner
// gave differs, an *UnvouchedError. The bin dir is as it was (the other
// files, already checked, are not installed either).
func TestWrongChecksumChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		binary, source string // source: in a *ChecksumError's Source; "" for an *UnvouchedError
	}{
		{"kwokctl", "AUR"}, // the last file: every other was checked already
		{"etcd", "kubespray"},
		{"kube-scheduler", ""},
	} {
		t.Run(tc.binary, func(t *testing.T) {
			m := newFakeMirror(t, 64<<10)
			p := m.upstreamPath(tc.binary)
			m.files[p] = append(append([]byte{}, m.files[p]...), 0)
			bin := t.TempDir()
			os.WriteFile(filepath.Join(bin, "kubectl"), []byte("mine"), 0o755)
			before := snapshot(t, bin)
			_, err := Install(context.Background(), m.options(bin, io.Discard))
			var ce *ChecksumError
			var ue *UnvouchedError
			switch {
			case tc.source == "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "kube-scheduler") || !strings.Contains(err.Error(), EnvSums)):
				t.Errorf("Install = %v, want an *UnvouchedError naming kube-scheduler and %s", err, EnvSums)
			case tc.source != "" && !errors.As(err, &ce):
				t.Fatalf("Install = %v, want a *ChecksumError", err)
			case tc.source != "":
				if ce.Want == ce.Got || len(ce.Got) != 64 || !strings.Contains(ce.URL, m.srv.URL) || !strings.Contains(ce.Source, tc.source) || !ce.Given {
					t.Errorf("ChecksumError %+v", ce)
				}
				for _, want := range []string{ce.File, ce.URL, ce.Want, ce.Got, EnvSums} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message lacks %q:\n%s", want, err)
					}
				}
			}
			if after := snapshot(t, bin); !equal(before, after) {
				t.Errorf("bin dir changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// A mirror nothing vouches for on this machine is refused before a byte
// is fetched: kube-apiserver, kube-controller-manager and kube-scheduler
// have no carried digest and the mirror's checksums do not count.
func TestUnvouchedMirrorFetchesNothing(t *testing.T) {
	m := newFakeMirror(t, 16<<10)
	t.Setenv(EnvSums, "")
	bin := t.TempDir()
	_, err := Install(context.Background(), m.options(bin, io.Discard))
	var ue *UnvouchedError
	if !errors.As(err, &ue) || len(ue.Files) != 3 {
		t.Fatalf("Install = %v, want an *UnvouchedError for the three files labmate carries no digest for", err)
	}
	if n := m.total(); n != 0 {
		t.Errorf("%d requests to a mirror nothing could vouch for", n)
	}
}

// From upstream itself over https, a file labmate carries no digest for
// is checked against upstream's checksum beside it, and the progress
// line and the stamp say so; one it carries a digest for is checked
// against that (and upstream's checksum file is not asked for). Over
// plain http the same file is refused.
func TestUpstreamFallsBackToItsOwnChecksumOnlyOverHTTPS(t *testing.T) {
	carried, bare := []byte("kubectl as upstream built it"), []byte("kube-apiserver as upstream built it")
	var asked []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		switch r.URL.Path {
		case "/kubectl":
			w.Write(carried)
		case "/kube-apiserver":
			w.Write(bare)
		case "/kube-apiserver.sha256", "/kubectl.sha256":
			w.Write([]byte(sum(bare) + "\n"))
		default:
			http.NotFound(w, r)
		}
	})
	table := func(base string) []cluster.Download {
		return []cluster.Download{
			{Binaries: []string{"kube-apiserver"}, URL: base + "/kube-apiserver", Checksum: cluster.Checksum{URL: base + "/kube-apiserver.sha256"},
				Carried: cluster.Digest{Unread: "none read here"}},
			{Binaries: []string{"kubectl"}, URL: base + "/kubectl", Checksum: cluster.Checksum{URL: base + "/kubectl.sha256"},
				Carried: cluster.Digest{SHA256: sum(carried), Size: int64(len(carried)), Source: "two packagers"}},
		}
	}
	t.Setenv(EnvSums, "")
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	bin := t.TempDir()
	var out bytes.Buffer
	off := false
	o := Options{BinDir: bin, Binaries: []string{"kube-apiserver", "kubectl"}, Downloads: table(srv.URL), HTTPClient: srv.Client(),
		GOOS: "linux", GOARCH: "amd64", Progress: &out, Terminal: &off, RetryWait: time.Millisecond}
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatalf("Install: %v\n%s", err, out.String())
	}
	stamp, _ := os.ReadFile(filepath.Join(bin, stampName))
	if !strings.Contains(string(stamp), "checked=kube-apiserver:same-host-checksum,kubectl:carried") {
		t.Errorf("stamp %q does not say what vouched for each", stamp)
	}
	if !strings.Contains(out.String(), VouchSameHost.words(srv.URL+"/kube-apiserver.sha256")) || !strings.Contains(out.String(), VouchCarried.words("two packagers")) {
		t.Errorf("progress does not say what each file was checked against:\n%s", out.String())
	}
	if slices.Contains(asked, "/kubectl.sha256") {
		t.Errorf("asked upstream for the checksum of a file labmate carries a digest for: %v", asked)
	}

	plain := httptest.NewServer(h)
	defer plain.Close()
	o.BinDir, o.Downloads, o.HTTPClient = t.TempDir(), table(plain.URL), nil
	for i := range o.Downloads {
		o.Downloads[i].URL = strings.Replace(o.Downloads[i].URL, "https://", "http://", 1)
	}
	_, err := Install(context.Background(), o)
	var ue *UnvouchedError
	if !errors.As(err, &ue) || ue.Files[0].Name != "kube-apiserver" {
		t.Errorf("over plain http: Install = %v, want an *UnvouchedError for kube-apiserver", err)
	}
}

// A URL's credentials reach no line, no stamp and no error.
func TestCredentialsStayOutOfSight(t *testing.T) {
	m := newFakeMirror(t, 16<<10)
	var out bytes.Buffer
	bin := t.TempDir()
	o := m.options(bin, &out)
	o.From = strings.Replace(m.srv.URL, "http://", "http://learner:s3cret@", 1)
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	stamp, _ := os.ReadFile(filepath.Join(bin, stampName))
	for what, text := range map[string]string{"progress": out.String(), "stamp": string(stamp)} {
		if strings.Contains(text, "s3cret") || strings.Contains(text, "learner:") {
			t.Errorf("%s shows the credentials:\n%s", what, text)
		}
	}
	o.BinDir, o.From = t.TempDir(), "http://learner:s3cret@"+closedAddr(t)
	o.Retries = 1
	if _, err := Install(context.Background(), o); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error shows the credentials: %v", err)
	}
}

// The bin dir keeps each installed binary's sha256; Changed names one
// altered since.
func TestChangedSinceInstalled(t *testing.T) {
	_, bin := filledBinDir(t)
	if changed, recorded, err := Changed(bin, binaries); err != nil || !recorded || len(changed) != 0 {
		t.Fatalf("Changed right after Install = %v, %v, %v", changed, recorded, err)
	}
	os.WriteFile(filepath.Join(bin, "kube-scheduler"), []byte("#!/bin/sh\n"), 0o755)
	if changed, _, _ := Changed(bin, binaries); strings.Join(changed, ",") != "kube-scheduler" {
		t.Errorf("Changed after replacing kube-scheduler = %v", changed)
	}
	if _, recorded, _ := Changed(t.TempDir(), binaries); recorded {
		t.Error("a bin dir without a record is said to have one")
	}
}

// A connection cut halfway through a body is resumed with a Range
// request, or started again where the server offers no ranges; either
// way the file is whole.
func TestCutConnectionResumes(t *testing.T) {
	for _, noRanges := range []bool{false, true} {
		t.Run(map[bool]string{false: "ranges", true: "no ranges"}[noRanges], func(t *testing.T) {
			m := newFakeMirror(t, 512<<10)
			m.noRanges = noRanges
			m.set(m.cut, "kube-apiserver", 2)
			bin := t.TempDir()
			var out bytes.Buffer
			if _, err := Install(context.Background(), m.options(bin, &out)); err != nil {
				t.Fatalf("Install: %v\n%s", err, out.String())
			}
			m.checkInstalled(t, bin)
			if n := m.count(m.requests, "kube-apiserver"); n != 3 {
				t.Errorf("kube-apiserver requested %d times, want 3 (two cut)", n)
			}
			// Asked for both times; given only where the server has ranges.
			if n := m.count(m.ranges, "kube-apiserver"); n != 2 {
				t.Errorf("%d Range requests, want 2", n)
			}
			if !strings.Contains(out.String(), "연결이 끊겼습니다") {
				t.Errorf("progress does not say the connection was cut:\n%s", out.String())
			}
		})
	}
}

// A body that stops coming counts as cut after the stall timeout, and is
// resumed.
func TestStalledBodyResumes(t *testing.T) {
	m := newFakeMirror(t, 256<<10)
	m.set(m.stall, "kubectl", 1)
	bin := t.TempDir()
	if _, err := Install(context.Background(), m.options(bin, io.Discard)); err != nil {
		t.Fatal(err)
	}
	m.checkInstalled(t, bin)
	if n := m.count(m.ranges, "kubectl"); n != 1 {
		t.Errorf("%d Range requests for the stalled kubectl, want 1", n)
	}
}

// A connection cut on every try fails with a *TruncatedError and leaves
// the bin dir as it was; run again once the network is back, it
// succeeds from a clean start.
func TestCutEveryTimeThenRerun(t *testing.T) {
	m := newFakeMirror(t, 256<<10)
	m.set(m.cut, "kube-controller-manager", 100)
	bin := t.TempDir()
	before := snapshot(t, bin)
	o := m.options(bin, io.Discard)
	o.BodyAttempts = 3
	_, err := Install(context.Background(), o)
	var te *TruncatedError
	if !errors.As(err, &te) || te.Attempts != 3 || te.Want != 256<<10 || te.Got >= te.Want {
		t.Fatalf("Install = %v (%+v), want a *TruncatedError after 3 tries", err, te)
	}
	if !strings.Contains(err.Error(), te.URL) {
		t.Errorf("message lacks the URL:\n%s", err)
	}
	if after := snapshot(t, bin); !equal(before, after) {
		t.Errorf("bin dir changed: %v", after)
	}
	m.set(m.cut, "kube-controller-manager", 0)
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatalf("rerun: %v", err)
	}
	m.checkInstalled(t, bin)
}

// An install that was killed leaves a temporary directory; the next one
// removes it.
func TestStaleTemporaryDirectoryIsRemoved(t *testing.T) {
	m := newFakeMirror(t, 16<<10)
	bin := t.TempDir()
	stale := filepath.Join(bin, tmpPrefix+"123")
	os.MkdirAll(stale, 0o755)
	os.WriteFile(filepath.Join(stale, "kube-apiserver"), []byte("half"), 0o600)
	if _, err := Install(context.Background(), m.options(bin, io.Discard)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale %s still there (%v)", stale, err)
	}
}

// Two installs into one bin dir at once: the second waits for the
// first's lock, then finds every binary there; both succeed, each file
// was fetched once and is whole.
func TestConcurrentInstalls(t *testing.T) {
	m := newFakeMirror(t, 256<<10)
	bin := t.TempDir()
	// The first install's first file waits until the second install says
	// it waits for the lock.
	gate := make(chan struct{})
	m.mu.Lock()
	m.gate[m.upstreamPath("kube-apiserver")] = gate
	m.mu.Unlock()
	waiting := content.Msg("prebuilt.waiting", "bin_dir", bin)
	var first, second lockedBuffer
	errs := make(chan error, 2)
	go func() {
		_, err := Install(context.Background(), m.options(bin, &first))
		errs <- err
	}()
	waitFor(t, "the first install asking for kube-apiserver", func() bool { return m.count(m.requests, "kube-apiserver") > 0 }, first.String)
	go func() {
		_, err := Install(context.Background(), m.options(bin, &second))
		errs <- err
	}()
	waitFor(t, "the second install waiting for the lock", func() bool { return strings.Contains(second.String(), waiting) }, second.String)
	close(gate)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Install: %v\nfirst:\n%s\nsecond:\n%s", err, first.String(), second.String())
		}
	}
	m.checkInstalled(t, bin)
	for _, b := range []string{"kube-apiserver", "kwok", "etcd"} {
		if n := m.count(m.requests, b); n != 1 {
			t.Errorf("%s fetched %d times, want once", b, n)
		}
	}
	if !strings.Contains(second.String(), content.Msg("prebuilt.present", "bin_dir", bin)) {
		t.Errorf("the second install did not find the binaries there:\n%s", second.String())
	}
}

// HTTP answers other than the file are typed errors with the status and
// the URL: a 404 at once, a 503 after the retries.
func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		status, requests int
	}{{404, 1}, {503, 3}} {
		m := newFakeMirror(t, 16<<10)
		m.set(m.status, "kube-apiserver", tc.status)
		o := m.options(t.TempDir(), io.Discard)
		o.Retries = 2
		_, err := Install(context.Background(), o)
		var he *HTTPError
		if !errors.As(err, &he) || he.Status != tc.status || !strings.Contains(he.URL, "kube-apiserver") {
			t.Fatalf("%d: Install = %v, want an *HTTPError %d", tc.status, err, tc.status)
		}
		if !strings.Contains(err.Error(), he.URL) || !strings.Contains(err.Error(), he.Text) {
			t.Errorf("message lacks the URL or the status:\n%s", err)
		}
		if n := m.count(m.requests, "kube-apiserver"); n != tc.requests {
			t.Errorf("%d: %d requests, want %d", tc.status, n, tc.requests)
		}
	}
}

// Nothing answering is a *NetworkError (Unreachable), whose message
// points at the ways without a network.
func TestNoNetwork(t *testing.T) {
	vouchAll(t)
	o := Options{BinDir: t.TempDir(), Binaries: binaries, From: "http://" + closedAddr(t), GOOS: "linux", GOARCH: "amd64",
		Retries: 1, RetryWait: time.Millisecond}
	_, err := Install(context.Background(), o)
	if !Unreachable(err) {
		t.Fatalf("Install = %v, want a *NetworkError", err)
	}
	// Why, in Korean: nothing listens there (no client English).
	for _, want := range []string{o.From, "--from", EnvMirror, content.Msg("prebuilt.cause.refused")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%s", want, err)
		}
	}
}

// Upstream publishes nothing for macOS's server binaries: without a
// mirror or bundle, Install says so.
func TestUnsupportedPlatform(t *testing.T) {
	_, err := Install(context.Background(), Options{BinDir: t.TempDir(), Binaries: binaries, GOOS: "darwin", GOARCH: "arm64"})
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.OS != "darwin" {
		t.Fatalf("Install = %v, want an *UnsupportedError", err)
	}
	if Supported("darwin", "arm64") || !Supported("linux", "arm64") {
		t.Error("Supported is wrong")
	}
}

// A full disk is its own error, naming the directory.
func TestDiskFull(t *testing.T) {
	err := writeErr("/x/bin/.fetch.1/kubectl", &os.PathError{Op: "write", Path: "kubectl", Err: errNoSpace})
	var df *DiskFullError
	if !errors.As(err, &df) || df.Dir != "/x/bin/.fetch.1" || !strings.Contains(err.Error(), "/x/bin/.fetch.1") {
		t.Fatalf("writeErr = %v", err)
	}
	if !strings.Contains(err.Error(), "디스크가 가득") {
		t.Errorf("message: %s", err)
	}
}

// A mirror may be a directory with upstream's layout.
func TestInstallFromDirectory(t *testing.T) {
	m := newFakeMirror(t, 32<<10)
	dir := t.TempDir()
	for p, body := range m.files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, body, 0o644)
	}
	bin := t.TempDir()
	o := m.options(bin, io.Discard)
	o.From = dir
	if KindOf(dir) != Mirror {
		t.Fatalf("KindOf(a directory) = %v", KindOf(dir))
	}
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	m.checkInstalled(t, bin)
}

func TestMirrorURLAndKind(t *testing.T) {
	up := "https://dl.k8s.io/release/v1.34.12/bin/linux/amd64/kubectl"
	if got := MirrorURL("http://10.0.0.5:8000/", up); got != "http://10.0.0.5:8000/dl.k8s.io/release/v1.34.12/bin/linux/amd64/kubectl" {
		t.Errorf("MirrorURL = %s", got)
	}
	if got := MirrorURL("/srv/mirror", up); got != "file:///srv/mirror/dl.k8s.io/release/v1.34.12/bin/linux/amd64/kubectl" {
		t.Errorf("MirrorURL(dir) = %s", got)
	}
	for from, want := range map[string]Kind{"": Upstream, "http://h:8000": Mirror, "https://h/labmate.tar.gz": Bundle,
		"/media/usb/cluster.tgz": Bundle, "cluster-bundle": Bundle} {
		if got := KindOf(from); got != want {
			t.Errorf("KindOf(%q) = %v, want %v", from, got, want)
		}
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A server that answers a Range request with another range than asked
// for is not trusted to resume: the file is fetched again, whole.
func TestWrongRangeStartsAgain(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 16<<10)
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		switch {
		case n == 1: // half, then the connection drops
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		case r.Header.Get("Range") != "": // the whole file as a "range"
			w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(body)-1, len(body)))
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(body)
		default:
			w.Write(body)
		}
	}))
	defer srv.Close()
	o := Options{RetryWait: time.Millisecond}.withDefaults()
	f := newFetcher(&o, o.meter())
	dst := filepath.Join(t.TempDir(), "file")
	got, size, err := f.get(context.Background(), srv.URL+"/file", dst, "file", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(dst)
	if got != sum(body) || size != int64(len(body)) || !bytes.Equal(data, body) || requests != 3 {
		t.Errorf("sha256 %s size %d (want %d), %d requests (want 3: cut, wrong range, whole)", got, size, len(body), requests)
	}
}

// Through a proxy: one that asks for credentials is an *HTTPError 407
// that names the proxy and says how to give them; one that does not
// answer is a *NetworkError that names it.
func TestProxyErrors(t *testing.T) {
	vouchAll(t)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusProxyAuthRequired)
	}))
	defer proxy.Close()
	for _, tc := range []struct {
		name, proxy string
		check       func(t *testing.T, err error)
	}{
		{"407", proxy.URL, func(t *testing.T, err error) {
			var he *HTTPError
			if !errors.As(err, &he) || he.Status != 407 || he.Proxy != proxy.URL || !strings.Contains(err.Error(), "HTTPS_PROXY") {
				t.Errorf("Install = %v, want an *HTTPError 407 through %s", err, proxy.URL)
			}
		}},
		{"silent", "http://" + closedAddr(t), func(t *testing.T, err error) {
			var ne *NetworkError
			if !errors.As(err, &ne) || ne.Proxy == "" || !strings.Contains(err.Error(), ne.Proxy) {
				t.Errorf("Install = %v, want a *NetworkError naming the proxy", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pu, _ := url.Parse(tc.proxy)
			// A mirror that is not loopback (the proxy is skipped for
			// loopback); nothing is sent to it, only to the proxy.
			o := Options{BinDir: t.TempDir(), Binaries: binaries, From: "http://mirror.example.invalid", GOOS: "linux", GOARCH: "amd64",
				Retries: 1, RetryWait: time.Millisecond, Progress: io.Discard,
				HTTPClient: &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}}
			_, err := Install(context.Background(), o)
			tc.check(t, err)
		})
	}
}

// vouchAll gives a digest (any) for every file of the table, so that an
// install gets as far as asking for them.
func vouchAll(t *testing.T) {
	t.Helper()
	t.Setenv(EnvSums, "")
	ds, _ := cluster.Downloads("linux", "amd64")
	for _, d := range ds {
		sumsFile(t, d.Name(), strings.Repeat("0", 64))
	}
}
