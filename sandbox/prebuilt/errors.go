package prebuilt

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// The errors Install and the bundle functions return, each a value with
// the fields a caller acts on (package sandbox falls back to the source
// build on a *NetworkError from upstream) and a Korean text that says
// what happened and what to do. Nothing of a failed install stays in the
// bin dir: every one of them leaves it as it was.

// ChecksumError: a file's sha256 is not the one expected. The file was
// deleted; nothing of it was made executable or moved.
type ChecksumError struct {
	File   string // the file's name, "kube-apiserver" or "etcd-v3.6.4-linux-amd64.tar.gz"
	URL    string // where it came from (a bundle's path for a bundle's file)
	Want   string // the expected sha256
	Got    string // the downloaded file's
	Source string // where Want came from: a checksum file's URL, the table's pin, a bundle's manifest
}

func (e *ChecksumError) Error() string {
	return content.Msg("prebuilt.err.checksum", "file", e.File, "url", e.URL, "want", e.Want, "got", e.Got, "source", e.Source)
}

// TruncatedError: the body ended (or stalled) before the length the
// server announced, on every try.
type TruncatedError struct {
	URL      string
	Got      int64
	Want     int64 // -1 when the server announced none
	Attempts int
	Err      error
}

func (e *TruncatedError) Error() string {
	want := "?"
	if e.Want >= 0 {
		want = mib(e.Want)
	}
	return content.Msg("prebuilt.err.truncated", "url", e.URL, "got", mib(e.Got), "want", want, "attempts", e.Attempts, "err", e.Err)
}

func (e *TruncatedError) Unwrap() error { return e.Err }

// DiskFullError: writing into the bin dir failed with ENOSPC (or EDQUOT).
type DiskFullError struct {
	Dir  string
	Need int64 // bytes the whole install needs, roughly; 0 when unknown
	Err  error
}

func (e *DiskFullError) Error() string {
	need := ""
	if e.Need > 0 {
		need = content.Msg("prebuilt.err.disk_need", "size", mib(e.Need))
	}
	return content.Msg("prebuilt.err.disk_full", "dir", e.Dir, "need", need)
}

func (e *DiskFullError) Unwrap() error { return e.Err }

// HTTPError: the server (or a proxy in between) answered with a status
// other than the file.
type HTTPError struct {
	URL    string
	Status int
	Text   string // the status line's text, "404 Not Found"
	Proxy  string // the proxy the request went through, "" for none
}

func (e *HTTPError) Error() string {
	hint := ""
	switch {
	case e.Status == 407:
		hint = content.Msg("prebuilt.err.http_407")
	case e.Status == 404 || e.Status == 403:
		hint = content.Msg("prebuilt.err.http_404")
	case e.Status >= 500:
		hint = content.Msg("prebuilt.err.http_5xx")
	}
	return content.Msg("prebuilt.err.http", "url", e.URL, "status", e.Text, "proxy", proxyText(e.Proxy), "hint", hint)
}

// NetworkError: no answer at all (no route, name not found, connection
// refused or reset before a status, a proxy that does not answer).
type NetworkError struct {
	URL   string
	Proxy string
	Err   error
}

func (e *NetworkError) Error() string {
	return content.Msg("prebuilt.err.network", "url", e.URL, "proxy", proxyText(e.Proxy), "err", e.Cause(),
		"env", EnvMirror)
}

// Cause is why the connection failed, in Korean, by the error's type
// (kube.CauseOf: the name not found, refused, no answer, a certificate
// not trusted); an error of no known kind is shown as it is, since its
// text is all there is to say.
func (e *NetworkError) Cause() string {
	if key, ok := causeKeys[kube.CauseOf(e.Err)]; ok {
		return content.Msg(key)
	}
	return rootCause(e.Err).Error()
}

// causeKeys word the causes a download meets.
var causeKeys = map[kube.Cause]string{
	kube.Unresolved: "prebuilt.cause.dns",
	kube.Refused:    "prebuilt.cause.refused",
	kube.Timeout:    "prebuilt.cause.timeout",
	kube.Untrusted:  "prebuilt.cause.tls",
}

func (e *NetworkError) Unwrap() error { return e.Err }

// UnsupportedError: upstream publishes no build of every binary for this
// platform (only linux/amd64 and linux/arm64), and no mirror or bundle
// was named.
type UnsupportedError struct{ OS, Arch string }

func (e *UnsupportedError) Error() string {
	return content.Msg("prebuilt.err.unsupported", "platform", e.OS+"/"+e.Arch)
}

// BundleError: a bundle that cannot be installed as it is: not a bundle,
// for another platform or other versions, or missing a binary. (A file
// whose sha256 differs from its manifest's is a *ChecksumError.)
type BundleError struct {
	Bundle string
	Key    string // the reason's message key, prebuilt.bundle.*
	KV     []any  // its placeholders
}

func (e *BundleError) Error() string {
	return content.Msg("prebuilt.err.bundle", "bundle", e.Bundle, "reason", content.Msg(e.Key, e.KV...))
}

// StampMissingError: the bin dir has no stamp, so nothing says what its
// binaries are (they were put there by hand): a bundle would carry
// binaries of unknown versions.
type StampMissingError struct{ BinDir string }

func (e *StampMissingError) Error() string {
	return content.Msg("prebuilt.err.no_stamp", "bin_dir", e.BinDir)
}

// proxyText is prebuilt.err.via_proxy naming the proxy, or "".
func proxyText(proxy string) string {
	if proxy == "" {
		return ""
	}
	return content.Msg("prebuilt.err.via_proxy", "proxy", proxy)
}

// rootCause is the innermost error's text: "connection refused", not
// `Get "http://…": dial tcp …: connect: connection refused` (the URL is
// in the message already).
func rootCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return fmt.Errorf("%s: %w", op.Op, op.Err)
	}
	return err
}

// diskFull reports whether err is a full disk or a used-up quota.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// mib words a size for a message: "95.1 MiB".
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
