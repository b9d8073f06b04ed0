package admin

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/labhub/labmate/internal/lockfile"
)

// writeKubeconfig writes a learner's class kubeconfig: one cluster (the
// server learners reach, with the admin's CA), one user named after the
// learner with the token, one context in the class namespace.
func writeKubeconfig(path string, admin *rest.Config, server, ns, learner, token string) error {
	ca := admin.CAData
	if len(ca) == 0 && admin.CAFile != "" {
		b, err := os.ReadFile(admin.CAFile)
		if err != nil {
			return err
		}
		ca = b
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["class"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca, InsecureSkipTLSVerify: admin.Insecure, TLSServerName: admin.ServerName}
	kc.AuthInfos[learner] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts[learner] = &clientcmdapi.Context{Cluster: "class", AuthInfo: learner, Namespace: ns}
	kc.CurrentContext = learner
	raw, err := clientcmd.Write(*kc)
	if err != nil {
		return err
	}
	return lockfile.WriteAtomic(path, raw, 0o600)
}

// keptKubeconfig is the learner's kubeconfig at path as init wrote it
// before, when it can stay: it is this learner's in this class on this
// server, and its token is good for KeepTokenFor more. A learner who has
// the file already then keeps a working one, and the instructor hands
// nothing out again.
func keptKubeconfig(path, server, ns, learner string, now time.Time) (LearnerFile, bool) {
	kc, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return LearnerFile{}, false
	}
	ctx := kc.Contexts[kc.CurrentContext]
	if ctx == nil || ctx.Namespace != ns || ctx.AuthInfo != learner {
		return LearnerFile{}, false
	}
	cl, user := kc.Clusters[ctx.Cluster], kc.AuthInfos[ctx.AuthInfo]
	if cl == nil || cl.Server != server || user == nil || user.Token == "" {
		return LearnerFile{}, false
	}
	exp, ok := TokenExpiry(user.Token)
	if !ok || !exp.IsZero() && exp.Sub(now) < KeepTokenFor {
		return LearnerFile{}, false
	}
	return LearnerFile{Learner: learner, Path: path, Expires: exp, Legacy: exp.IsZero()}, true
}

// TokenExpiry is when a ServiceAccount token ends, read from its JWT
// claims (not verified: init reads back a token it wrote itself). Zero
// for a token without an end (a legacy Secret's); ok is false for what
// is not a JWT.
func TokenExpiry(token string) (time.Time, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp *int64 `json:"exp"`
	}
	if err := json.Unmarshal(raw, &claims); err != nil {
		return time.Time{}, false
	}
	if claims.Exp == nil {
		return time.Time{}, true
	}
	return time.Unix(*claims.Exp, 0), true
}
