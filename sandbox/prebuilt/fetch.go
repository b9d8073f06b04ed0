package prebuilt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/labhub/labmate/content"
)

// fetcher downloads files. Requests go through go-retryablehttp, which
// retries what fails before a body arrives (connection refused or reset,
// 5xx, 429) with backoff. A body cut or stalled halfway is not its
// business (it returns the response as soon as the headers are in), so
// get resumes it: a Range request from the bytes already written when
// the server offers ranges, from the start otherwise, a few times.
type fetcher struct {
	client   *retryablehttp.Client
	proxy    func(*http.Request) (*url.URL, error) // the transport's, for messages
	meter    *meter
	attempts int           // tries at a body before TruncatedError
	stall    time.Duration // no byte for this long counts as a cut
}

func newFetcher(o *Options, m *meter) *fetcher {
	var hc *http.Client
	if o.HTTPClient == nil {
		hc = cleanhttp.DefaultPooledClient()
		t := hc.Transport.(*http.Transport)
		// No overall timeout (a file is 100 MiB on a slow link); the
		// headers must come within a minute, a stalled body is a cut.
		t.ResponseHeaderTimeout = time.Minute
		// A mirror may be a directory: file:///path/to/mirror/... (never
		// reached by a redirect: checkRedirect).
		t.RegisterProtocol("file", http.NewFileTransport(http.Dir("/")))
	} else {
		copied := *o.HTTPClient
		hc = &copied
	}
	hc.CheckRedirect = checkRedirect
	c := retryablehttp.NewClient()
	c.HTTPClient = hc
	c.Logger = nil
	c.RetryMax = o.Retries
	c.RetryWaitMin, c.RetryWaitMax = o.RetryWait, 8*o.RetryWait
	c.ErrorHandler = retryablehttp.PassthroughErrorHandler
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		// A name that does not resolve will not resolve in a second
		// either: say so now (no network, or a typo in the mirror). A
		// refused redirect is refused again.
		var dns *net.DNSError
		var re *RedirectError
		if errors.As(err, &dns) && dns.IsNotFound || errors.As(err, &re) {
			return false, nil
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	// A server's Retry-After is obeyed up to MaxRetryAfter (an hour's
	// 503 would otherwise wait an hour in silence); a wait it asks for
	// longer than a few seconds is said.
	c.Backoff = func(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
		if asked, ok := retryAfter(resp); ok {
			wait := min(asked, o.MaxRetryAfter)
			if asked > 3*time.Second {
				m.Note("prebuilt.progress.retry_after", "url", Redact(resp.Request.URL.String()),
					"asked", content.Duration(asked), "wait", content.Duration(wait))
			}
			return wait
		}
		return retryablehttp.DefaultBackoff(lo, hi, attempt, nil)
	}
	c.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, attempt int) {
		if attempt > 0 {
			m.Note("prebuilt.progress.retry", "url", Redact(req.URL.String()), "n", attempt, "max", o.Retries)
		}
	}
	f := &fetcher{client: c, meter: m, attempts: o.BodyAttempts, stall: o.StallTimeout}
	if t, ok := hc.Transport.(*http.Transport); ok {
		f.proxy = t.Proxy
	}
	return f
}

// checkRedirect follows a redirect only to http(s), never from https to
// plain http, and at most ten times: a mirror's answer must not reach a
// local file (file://) or drop the transport's protection.
func checkRedirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1].URL
	to := req.URL
	if (to.Scheme != "http" && to.Scheme != "https") || (prev.Scheme == "https" && to.Scheme != "https") || len(via) >= 10 {
		return &RedirectError{From: Redact(prev.String()), To: Redact(to.String())}
	}
	return nil
}

// retryAfter is the wait a 429 or 503 asks for in its Retry-After
// (seconds, or an HTTP date).
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp == nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return time.Duration(min(n, 1<<31)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// proxyOf is the proxy a request to rawURL goes through, for messages
// ("" for none).
func (f *fetcher) proxyOf(rawURL string) string {
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil || f.proxy == nil {
		return ""
	}
	u, err := f.proxy(req)
	if err != nil || u == nil {
		return ""
	}
	return u.Redacted()
}

// do sends one GET (with retries), turning a failure into a typed error.
func (f *fetcher) do(ctx context.Context, rawURL string, header http.Header) (*http.Response, error) {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := f.client.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var re *RedirectError
		if errors.As(err, &re) {
			return nil, re
		}
		return nil, &NetworkError{URL: Redact(rawURL), Proxy: f.proxyOf(rawURL), Err: err}
	}
	return resp, nil
}

// small fetches a checksum file into memory (at most 1 MiB).
func (f *fetcher) small(ctx context.Context, rawURL string) ([]byte, error) {
	resp, err := f.do(ctx, rawURL, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &HTTPError{URL: Redact(rawURL), Status: resp.StatusCode, Text: resp.Status, Proxy: f.proxyOf(rawURL)}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, &TruncatedError{URL: Redact(rawURL), Got: int64(len(b)), Want: resp.ContentLength, Attempts: 1, Err: err}
	}
	return b, nil
}

// get downloads rawURL into the new file dst (named file in progress
// lines), at most limit bytes, and returns its sha256 and size once it
// is written, synced and closed. A body cut or stalled before its end is
// resumed (f.attempts tries in all); what is written stays in dst only
// when get succeeds (the caller removes dst otherwise).
func (f *fetcher) get(ctx context.Context, rawURL, dst, file string, limit int64) (sum string, size int64, err error) {
	shown := Redact(rawURL)
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", 0, writeErr(dst, err)
	}
	closed := false
	defer func() {
		if !closed {
			out.Close()
		}
	}()
	h := sha256.New()
	var have int64
	for attempt := 1; ; attempt++ {
		var header http.Header
		if have > 0 {
			header = http.Header{"Range": {fmt.Sprintf("bytes=%d-", have)}}
		}
		resp, err := f.do(ctx, rawURL, header)
		if err != nil {
			return "", 0, err
		}
		total := int64(-1)
		switch {
		case have > 0 && resp.StatusCode == http.StatusPartialContent && rangeStart(resp) == have:
			if resp.ContentLength >= 0 {
				total = have + resp.ContentLength
			}
		case resp.StatusCode == http.StatusOK:
			if have > 0 { // no ranges here: from the start
				if err := restart(out, h); err != nil {
					resp.Body.Close()
					return "", 0, writeErr(dst, err)
				}
				have = 0
			}
			total = resp.ContentLength
		case have > 0 && resp.StatusCode == http.StatusPartialContent:
			// Another range than asked for: start again, whole.
			resp.Body.Close()
			if err := restart(out, h); err != nil {
				return "", 0, writeErr(dst, err)
			}
			have = 0
			if attempt >= f.attempts {
				return "", 0, &TruncatedError{URL: shown, Got: 0, Want: -1, Attempts: attempt, Err: errors.New(resp.Header.Get("Content-Range"))}
			}
			continue
		default:
			resp.Body.Close()
			return "", 0, &HTTPError{URL: shown, Status: resp.StatusCode, Text: resp.Status, Proxy: f.proxyOf(rawURL)}
		}
		if total > limit {
			resp.Body.Close()
			return "", 0, &TooLargeError{URL: shown, Limit: limit}
		}
		f.meter.Start(file, total, have, shown)
		n, copyErr := f.copyBody(ctx, out, h, resp, limit-have)
		have += n
		if errors.Is(copyErr, errTooLarge) {
			return "", 0, &TooLargeError{URL: shown, Limit: limit}
		}
		if copyErr == nil && total >= 0 && have != total {
			copyErr = io.ErrUnexpectedEOF
		}
		if copyErr == nil {
			// Whole only once on the disk: a full or networked disk
			// may fail the sync or the close, not the writes.
			if err := out.Sync(); err != nil {
				return "", 0, writeErr(dst, err)
			}
			closed = true
			if err := out.Close(); err != nil {
				return "", 0, writeErr(dst, err)
			}
			return hex.EncodeToString(h.Sum(nil)), have, nil
		}
		if ctx.Err() != nil {
			return "", 0, ctx.Err()
		}
		var we *writeError
		if errors.As(copyErr, &we) {
			return "", 0, writeErr(dst, we.err)
		}
		if attempt >= f.attempts {
			return "", 0, &TruncatedError{URL: shown, Got: have, Want: total, Attempts: attempt, Err: copyErr}
		}
		f.meter.Note("prebuilt.progress.resume", "file", file, "done", mib(have), "err", rootCause(copyErr))
	}
}

// errTooLarge: a body went past its limit.
var errTooLarge = errors.New("too large")

// copyBody copies resp's body into out and h (and the meter), at most
// limit bytes (errTooLarge past them), ending it as a cut when no byte
// came for f.stall. A write error comes back as a
// *writeError, so that it is not mistaken for a cut connection.
func (f *fetcher) copyBody(ctx context.Context, out *os.File, h hash.Hash, resp *http.Response, limit int64) (int64, error) {
	defer resp.Body.Close()
	stalled := errors.New("no data")
	watch := time.AfterFunc(f.stall, func() { resp.Body.Close() })
	defer watch.Stop()
	var n int64
	buf := make([]byte, 256<<10)
	for {
		k, rerr := resp.Body.Read(buf)
		if int64(k) > limit-n {
			return n, errTooLarge
		}
		if k > 0 {
			watch.Reset(f.stall)
			if _, err := out.Write(buf[:k]); err != nil {
				return n, &writeError{err}
			}
			h.Write(buf[:k])
			_, _ = f.meter.Write(buf[:k])
			n += int64(k)
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			if !watch.Stop() && ctx.Err() == nil {
				return n, fmt.Errorf("%w for %s: %v", stalled, f.stall, rerr)
			}
			return n, rerr
		}
	}
}

// writeError marks an error of writing the file, not of reading the body.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// writeErr is a *DiskFullError for a full disk, else err with the path.
func writeErr(path string, err error) error {
	if diskFull(err) {
		return &DiskFullError{Dir: dirOf(path), Err: err}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// restart empties out and h for a download from the start.
func restart(out *os.File, h hash.Hash) error {
	h.Reset()
	if err := out.Truncate(0); err != nil {
		return err
	}
	_, err := out.Seek(0, io.SeekStart)
	return err
}

// rangeStart is where a 206's Content-Range starts ("bytes 100-199/200"),
// -1 when it cannot tell.
func rangeStart(resp *http.Response) int64 {
	cr := strings.TrimPrefix(resp.Header.Get("Content-Range"), "bytes ")
	first, _, ok := strings.Cut(cr, "-")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(first, 10, 64)
	if err != nil {
		return -1
	}
	return n
}
