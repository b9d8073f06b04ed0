package prebuilt

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/labmate/hack/cluster"
)

// binaries is sandbox.Binaries (this package cannot import sandbox).
var binaries = []string{"kwokctl", "kwok", "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"}

// fakeMirror is a loopback HTTP server with upstream's layout (MirrorURL:
// /<host>/<path>), serving made-up binaries: each binary's content, and
// the files upstream publishes (dl.k8s.io's bare binaries and .sha256,
// etcd's tarball and SHA256SUMS, kwok's bare binaries). Faults are set
// per path before a request.
type fakeMirror struct {
	t       *testing.T
	srv     *httptest.Server
	content map[string][]byte // binary name -> content
	files   map[string][]byte // URL path -> body

	mu       sync.Mutex
	requests map[string]int           // URL path -> requests
	ranges   map[string]int           // URL path -> requests with a Range header
	cut      map[string]int           // URL path -> requests left that are cut halfway (connection closed)
	stall    map[string]int           // URL path -> requests left that stop sending halfway
	status   map[string]int           // URL path -> status to answer instead
	noRanges bool                     // ignore Range headers (as python3 -m http.server does)
	gate     map[string]chan struct{} // URL path -> closed when the request may go on
}

// newFakeMirror makes the files for linux/amd64: binaries of size bytes
// each (random, so that a file cut or mixed up is seen), vouched for by
// a sums file of the test's own (EnvSums).
func newFakeMirror(t *testing.T, size int) *fakeMirror {
	t.Helper()
	m := &fakeMirror{t: t, content: map[string][]byte{}, files: map[string][]byte{},
		requests: map[string]int{}, ranges: map[string]int{}, cut: map[string]int{}, stall: map[string]int{},
		status: map[string]int{}, gate: map[string]chan struct{}{}}
	for _, b := range binaries {
		data := make([]byte, size)
		if _, err := rand.Read(data); err != nil {
			t.Fatal(err)
		}
		m.content[b] = data
	}
	ds, _ := cluster.Downloads("linux", "amd64")
	var sums strings.Builder
	for _, d := range ds {
		var body []byte
		if d.Members != nil {
			body = tarball(t, map[string][]byte{d.Members["etcd"]: m.content["etcd"], filepath.Dir(d.Members["etcd"]) + "/etcdctl": []byte("etcdctl")})
		} else {
			body = m.content[d.Binaries[0]]
		}
		m.files[pathOf(d.URL)] = body
		// Upstream's checksum files, as a mirror copies them: they vouch
		// for nothing (TestMirrorsOwnChecksumVouchesForNothing).
		switch {
		case d.Checksum.List:
			fmt.Fprintf(&sums, "%s  %s\n", sum(body), d.Name())
			m.files[pathOf(d.Checksum.URL)] = []byte(sums.String())
		case d.Checksum.URL != "":
			m.files[pathOf(d.Checksum.URL)] = []byte(sum(body))
		}
		// The files are made up, as a mirror of binaries built from
		// source: the test vouches for them on this machine.
		sumsFile(t, d.Name(), sum(body))
	}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// sumsFile adds name's digest to the file EnvSums names (made on first use).
func sumsFile(t *testing.T, name, digest string) {
	t.Helper()
	path := os.Getenv(EnvSums)
	if path == "" || !strings.HasPrefix(path, os.TempDir()) {
		path = filepath.Join(t.TempDir(), "local.sha256sums")
		t.Setenv(EnvSums, path)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%s  %s\n", digest, name)
}

// pathOf is the mirror's path of an upstream URL.
func pathOf(upstream string) string {
	u, _ := url.Parse(upstream)
	return "/" + u.Host + u.Path
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// tarball is a tar.gz of files (path -> content).
func tarball(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[n])
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func (m *fakeMirror) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	p := r.URL.Path
	m.requests[p]++
	if r.Header.Get("Range") != "" {
		m.ranges[p]++
	}
	cut, stall, status, gate := m.cut[p] > 0, m.stall[p] > 0, m.status[p], m.gate[p]
	if cut {
		m.cut[p]--
	}
	if stall {
		m.stall[p]--
	}
	body, ok := m.files[p]
	noRanges := m.noRanges
	m.mu.Unlock()
	if gate != nil {
		<-gate
	}
	switch {
	case status != 0:
		http.Error(w, http.StatusText(status), status)
	case !ok:
		http.NotFound(w, r)
	case cut || stall:
		// Announce the whole file, send half of what is asked, then hang
		// up (cut) or go silent until the client gives up (stall).
		from := int64(0)
		if s := rangeFrom(r); s > 0 && !noRanges {
			from = s
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(body)-1, len(body)))
			w.Header().Set("Content-Length", fmt.Sprint(int64(len(body))-from))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.WriteHeader(http.StatusOK)
		}
		rest := body[from:]
		w.Write(rest[:len(rest)/2])
		w.(http.Flusher).Flush()
		if stall {
			<-r.Context().Done()
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	default:
		if noRanges {
			r.Header.Del("Range")
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body)
			return
		}
		http.ServeContent(w, r, filepath.Base(p), time.Time{}, bytes.NewReader(body))
	}
}

// rangeFrom is where a "bytes=N-" Range header starts, 0 without one.
func rangeFrom(r *http.Request) int64 {
	var n int64
	fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &n)
	return n
}

// upstreamPath is the mirror path of binary's download.
func (m *fakeMirror) upstreamPath(binary string) string {
	ds, _ := cluster.Downloads("linux", "amd64")
	for _, d := range ds {
		for _, b := range d.Binaries {
			if b == binary {
				return pathOf(d.URL)
			}
		}
	}
	m.t.Fatalf("no download gives %s", binary)
	return ""
}

func (m *fakeMirror) set(field map[string]int, binary string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	field[m.upstreamPath(binary)] = n
}

func (m *fakeMirror) count(field map[string]int, binary string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return field[m.upstreamPath(binary)]
}

// total is the number of requests for every file.
func (m *fakeMirror) total() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.requests {
		n += c
	}
	return n
}

// options are Install's options against the mirror, quick to retry.
func (m *fakeMirror) options(binDir string, progress io.Writer) Options {
	off := false
	return Options{BinDir: binDir, Binaries: binaries, From: m.srv.URL, Progress: progress,
		GOOS: "linux", GOARCH: "amd64", RetryWait: time.Millisecond, StallTimeout: 500 * time.Millisecond, Terminal: &off}
}

// checkInstalled fails unless every binary is in binDir, executable, with
// the mirror's content.
func (m *fakeMirror) checkInstalled(t *testing.T, binDir string) {
	t.Helper()
	for _, b := range binaries {
		path := filepath.Join(binDir, b)
		fi, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s: %v", b, err)
			continue
		}
		if fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable (%v)", b, fi.Mode())
		}
		got, _ := os.ReadFile(path)
		if !bytes.Equal(got, m.content[b]) {
			t.Errorf("%s: %d bytes, not the mirror's %d", b, len(got), len(m.content[b]))
		}
	}
}

// snapshot is a bin dir's files and their contents' sha256, the lock
// file aside (taking the lock makes it).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || path == dir || fi.Name() == lockName {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if fi.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(path)
		out[rel] = fmt.Sprintf("%v %s", fi.Mode(), sum(b))
		return nil
	})
	return out
}

// waitFor waits (30 s at most) until cond holds, failing the test with
// what it waited for and what it saw.
func waitFor(t *testing.T, what string, cond func() bool, saw func() string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("%s did not happen within 30 s; saw:\n%s", what, saw())
	}
}

// errNoSpace is a full disk's error.
var errNoSpace = syscall.ENOSPC

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
