package prebuilt

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// The errors Install and the bundle functions return, each a value with
// the fields a caller acts on (package sandbox falls back to the source
// build on a *NetworkError from upstream) and a Korean text that says
// what happened and what to do. Nothing of a failed install stays in the
// bin dir: every one of them leaves it as it was.

// ChecksumError: a file's sha256 is not the one expected (the digest
// labmate carries, or upstream's checksum where it carries none; a
// bundle's file that differs from its manifest). The file was deleted;
// nothing of it was made executable or moved.
type ChecksumError struct {
	File   string // the file's name, "kube-apiserver" or "etcd-v3.6.4-linux-amd64.tar.gz"
	URL    string // where it came from (a bundle's path for a bundle's file)
	Want   string // the expected sha256
	Got    string // the downloaded file's
	Source string // what Want is, in words: labmate's carried digest and its source, upstream's checksum file, a bundle's manifest
	Given  bool   // the learner's sums file lists the file too, with another digest
}

func (e *ChecksumError) Error() string {
	hint := ""
	if e.Given {
		hint = content.Msg("prebuilt.err.checksum_given", "env", EnvSums)
	}
	return content.Msg("prebuilt.err.checksum", "file", e.File, "url", e.URL, "want", e.Want, "got", e.Got, "source", e.Source) + hint
}

// UnvouchedFile is one file nothing vouched for: no digest labmate
// carries (Why says why none), none the learner gave.
type UnvouchedFile struct {
	Name   string
	SHA256 string // its sha256, when it was read
	Why    string // why labmate carries no digest for it ("" when it carries one)
}

// UnvouchedError: files that match no digest labmate carries and none
// the learner gave (a mirror's or bundle's of binaries built from
// source, or a changed one). Nothing was installed.
type UnvouchedError struct {
	From   string // the mirror or bundle (without credentials)
	Bundle bool   // a bundle: its own sha256 (--sha256) would vouch for it
	Files  []UnvouchedFile
	Env    string // EnvSums
}

func (e *UnvouchedError) Error() string {
	var lines []string
	for _, f := range e.Files {
		sum := f.SHA256
		if sum == "" {
			sum = content.Msg("prebuilt.err.unvouched_unread")
		}
		carried := content.Msg("prebuilt.err.unvouched_carried")
		if f.Why != "" {
			carried = content.Msg("prebuilt.err.unvouched_none")
		}
		lines = append(lines, content.Msg("prebuilt.err.unvouched_file", "file", f.Name, "sha256", sum, "carried", carried))
	}
	how := content.Msg("prebuilt.err.unvouched_mirror", "env", e.Env)
	if e.Bundle {
		how = content.Msg("prebuilt.err.unvouched_bundle", "bundle", e.From, "env", e.Env)
	}
	return content.Msg("prebuilt.err.unvouched", "from", e.From, "files", strings.Join(lines, "\n")) + "\n" + how
}

// BundleDigestError: the bundle's own sha256 is not the one the learner
// gave (--sha256). Nothing of it was written.
type BundleDigestError struct {
	Bundle    string
	Want, Got string
}

func (e *BundleDigestError) Error() string {
	return content.Msg("prebuilt.err.bundle_digest", "bundle", e.Bundle, "want", e.Want, "got", e.Got)
}

// RedirectError: a server redirected to something other than http(s),
// or from https to plain http. The file was not fetched.
type RedirectError struct{ From, To string }

func (e *RedirectError) Error() string {
	return content.Msg("prebuilt.err.redirect", "from", e.From, "to", e.To)
}

// TooLargeError: a file (or a bundle's member) is larger than its limit:
// the size labmate carries for it, or a generous cap. What came is deleted.
type TooLargeError struct {
	URL   string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return content.Msg("prebuilt.err.too_large", "url", e.URL, "limit", mib(e.Limit))
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
