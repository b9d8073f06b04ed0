// A Kubernetes client error worded for a learner, in
// Korean, with what to do about it: the one kubeconfig loader's
// *LoadError, and the common reasons a request fails
// (CauseOf: refused, timeout, unresolved name, untrusted
// certificate, 401, 403). It decides by the error's types, never by its
// words. client-go's and apimachinery's English goes to the --log file
// (slog), not to the screen; only an error of no known kind is shown as
// it is, since its text is all there is to say.

package kube

import (
	"errors"
	"io/fs"
	"log/slog"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/labhub/labmate/content"
)

// Explain is err in Korean: what went wrong and what to do.
func Explain(err error) string {
	if err == nil {
		return ""
	}
	Log(err)
	var ke *LoadError
	if errors.As(err, &ke) {
		return loadError(ke)
	}
	if c := CauseOf(err); c != "" {
		text := content.Msg("kube.cause." + string(c))
		if what := forbiddenWhat(err); c == Forbidden && what != "" {
			text = content.Msg("kube.forbidden_what", "what", what)
		}
		if server := serverOf(err); server != "" {
			text = content.Msg("kube.at_server", "text", text, "server", server)
		}
		return text
	}
	return oneLine(err.Error())
}

// Log keeps err's own words in the --log file (slog at debug level; the
// default logger drops it), for a caller that words err itself.
func Log(err error) { slog.Debug("kubernetes client error", "err", err.Error()) }

func loadError(ke *LoadError) string {
	paths := strings.Join(ke.Paths, ", ")
	switch ke.Kind {
	case Missing:
		return content.Msg("kube.missing", "paths", paths)
	case NoContext:
		contexts := strings.Join(ke.Contexts, ", ")
		if contexts == "" {
			contexts = "-"
		}
		return content.Msg("kube.no_context", "context", ke.Context, "paths", paths, "contexts", contexts)
	case Unreadable:
		switch {
		case errors.Is(ke.Err, fs.ErrNotExist):
			return content.Msg("kube.not_found", "paths", paths)
		case errors.Is(ke.Err, fs.ErrPermission):
			return content.Msg("kube.no_permission", "paths", paths)
		}
		return content.Msg("kube.unreadable", "paths", paths)
	}
	return content.Msg("kube.invalid", "paths", paths, "context", ke.Context)
}

// serverOf is the server a failed request went to, when the error says.
func serverOf(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			return u.Scheme + "://" + u.Host
		}
	}
	return ""
}

// forbiddenWhat names what a 403 was about from the status's details
// (kind and name), not from its English message; "" when it does not say.
func forbiddenWhat(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if d := status.Status().Details; d != nil && d.Kind != "" {
			return strings.TrimSpace(d.Kind + " " + d.Name)
		}
	}
	return ""
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}

// clientEnglish are pieces of client-go's, clientcmd's, apimachinery's
// and the network's own words for the failures Explain words.
var clientEnglish = []string{
	"no configuration has been provided", "KUBERNETES_MASTER", "invalid configuration",
	"context was not found", "connection refused", "connect:", "dial tcp",
	"x509", "certificate signed by unknown authority", "tls:",
	"forbidden", "Forbidden", "Unauthorized", "cannot get resource", "User \"",
	"no such host", "Client.Timeout", "deadline exceeded", "i/o timeout",
}

// ClientEnglish returns the first piece of the client's English words for
// a common failure that text carries, or "": for tests that hold a
// learner's screen free of them.
func ClientEnglish(text string) string {
	for _, e := range clientEnglish {
		if strings.Contains(text, e) {
			return e
		}
	}
	return ""
}
