package admin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/kube"
)

// InitConfig sets a class up.
type InitConfig struct {
	// Conn is the instructor's connection: the learners' kubeconfigs
	// point at the same server with the same CA.
	Conn      kube.Conn
	Namespace string
	Learners  []string
	Labs      []string
	// OutDir receives one kubeconfig per learner, <learner>.kubeconfig.
	OutDir string
	// TokenTTL is how long the learners' tokens live.
	TokenTTL time.Duration
	// Workers bounds concurrent learners (8 when 0).
	Workers int
}

// LearnerFile is one kubeconfig init wrote.
type LearnerFile struct {
	Learner string
	Path    string
	// Legacy is true when the token is a long-lived Secret token because
	// the API server cannot issue bound tokens (TokenRequest).
	Legacy bool
}

// LearnersFromCount names n learners learner-01, learner-02, ...
func LearnersFromCount(n int) []string {
	width := len(fmt.Sprint(n))
	width = max(width, 2)
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("learner-%0*d", width, i+1)
	}
	return out
}

// InvalidName is a names file entry that cannot name a learner.
type InvalidName struct {
	Line int
	Name string
	Dup  bool
}

func (e InvalidName) Error() string {
	return fmt.Sprintf("line %d: bad learner name %q", e.Line, e.Name)
}

// ReadLearners reads one learner name a line; blank lines and lines
// starting with # are skipped. Names must be DNS labels (ValidLearner)
// and unique.
func ReadLearners(r io.Reader) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if !class.ValidLearner(name) {
			return nil, InvalidName{Line: n, Name: name}
		}
		if seen[name] {
			return nil, InvalidName{Line: n, Name: name, Dup: true}
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, sc.Err()
}

// Init creates the class namespace, then for each learner a
// ServiceAccount, the learner's record objects (one per lab), a Role that
// may get and patch exactly those objects (and read the class's lab and
// the learner's acknowledgement object, class.AckObject) (RBAC cannot limit create by
// name, so learners never create), its RoleBinding, and a kubeconfig with
// a token for the ServiceAccount. It is idempotent: a second run leaves
// existing records as they are and writes fresh kubeconfigs.
func Init(ctx context.Context, cfg InitConfig) ([]LearnerFile, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = 24 * time.Hour
	}
	if err := os.MkdirAll(cfg.OutDir, 0o700); err != nil {
		return nil, err
	}
	cs, err := cfg.Conn.Typed()
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cfg.Namespace, Labels: map[string]string{class.LabelClass: "true"}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{FieldManager: class.InitFieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("namespace %s: %w", cfg.Namespace, err)
	}
	out := make([]LearnerFile, len(cfg.Learners))
	errs := make([]error, len(cfg.Learners))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i], errs[i] = initLearner(ctx, cfg, cs, cfg.Learners[i])
			}
		}()
	}
	for i := range cfg.Learners {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out, errors.Join(errs...)
}

func initLearner(ctx context.Context, cfg InitConfig, cs kube.Interface, learner string) (LearnerFile, error) {
	ns := cfg.Namespace
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{class.LabelClass: "true", class.LabelLearner: learner}}
	}
	create := func(what string, err error) error {
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s %s: %w", learner, what, err)
		}
		return nil
	}
	co := metav1.CreateOptions{FieldManager: class.InitFieldManager}
	_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta(learner)}, co)
	if err := create("serviceaccount", err); err != nil {
		return LearnerFile{}, err
	}
	var names []string
	for _, lab := range cfg.Labs {
		name := class.ObjectName(learner, lab)
		names = append(names, name)
		raw, err := class.Marshal(class.NewRecord(class.Identity{Learner: learner, Lab: lab}))
		if err != nil {
			return LearnerFile{}, err
		}
		cm := &corev1.ConfigMap{ObjectMeta: meta(name), Data: map[string]string{class.DataKey: string(raw)}}
		cm.Labels[class.LabelRecord] = "true"
		cm.Labels[class.LabelLab] = lab
		_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, co)
		if err := create("record", err); err != nil {
			return LearnerFile{}, err
		}
	}
	roleName := "labmate-learner-" + learner
	role := &rbacv1.Role{ObjectMeta: meta(roleName), Rules: []rbacv1.PolicyRule{{
		APIGroups:     []string{""},
		Resources:     []string{"configmaps"},
		ResourceNames: names,
		Verbs:         []string{"get", "patch"},
	}, {
		// The class's lab, by name: get, and list/watch with a
		// metadata.name field selector (the API server authorizes those
		// as requests for that name), never the namespace's list.
		APIGroups:     []string{""},
		Resources:     []string{"configmaps"},
		ResourceNames: []string{class.LabObject},
		Verbs:         []string{"get", "list", "watch"},
	}, {
		// The instructor's acknowledgements of this learner's hands,
		// read the same way; only the board writes them.
		APIGroups:     []string{""},
		Resources:     []string{"configmaps"},
		ResourceNames: []string{class.AckObject(learner)},
		Verbs:         []string{"get", "list", "watch"},
	}}}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, co); apierrors.IsAlreadyExists(err) {
		_, err = cs.RbacV1().Roles(ns).Update(ctx, role, metav1.UpdateOptions{FieldManager: class.InitFieldManager})
		if err != nil {
			return LearnerFile{}, fmt.Errorf("%s role: %w", learner, err)
		}
	} else if err != nil {
		return LearnerFile{}, fmt.Errorf("%s role: %w", learner, err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: meta(roleName),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: roleName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: learner, Namespace: ns}},
	}
	_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, rb, co)
	if err := create("rolebinding", err); err != nil {
		return LearnerFile{}, err
	}
	token, legacy, err := learnerToken(ctx, cs, ns, learner, cfg.TokenTTL)
	if err != nil {
		return LearnerFile{}, fmt.Errorf("%s token: %w", learner, err)
	}
	path := filepath.Join(cfg.OutDir, learner+".kubeconfig")
	if err := writeKubeconfig(path, cfg.Conn.Config(), ns, learner, token); err != nil {
		return LearnerFile{}, err
	}
	return LearnerFile{Learner: learner, Path: path, Legacy: legacy}, nil
}

// learnerToken asks for a bound token (TokenRequest). An API server without
// a service-account signing key cannot issue those; then it falls back to
// a long-lived token Secret filled by the token controller.
func learnerToken(ctx context.Context, cs kube.Interface, ns, sa string, ttl time.Duration) (string, bool, error) {
	secs := int64(ttl / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &secs},
	}, metav1.CreateOptions{})
	if err == nil && tr.Status.Token != "" {
		return tr.Status.Token, false, nil
	}
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
		return "", false, err
	}
	name := sa + "-token"
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{corev1.ServiceAccountNameKey: sa}},
		Type:       corev1.SecretTypeServiceAccountToken,
	}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{FieldManager: class.InitFieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", false, err
	}
	var token string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		s, err := cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		token = string(s.Data[corev1.ServiceAccountTokenKey])
		return token != "", nil
	})
	return token, true, err
}

// writeKubeconfig writes a learner's class kubeconfig: one cluster (the
// admin's server and CA), one user named after the learner with the
// token, one context in the class namespace.
func writeKubeconfig(path string, server *rest.Config, ns, learner, token string) error {
	ca := server.CAData
	if len(ca) == 0 && server.CAFile != "" {
		b, err := os.ReadFile(server.CAFile)
		if err != nil {
			return err
		}
		ca = b
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["class"] = &clientcmdapi.Cluster{Server: server.Host, CertificateAuthorityData: ca, InsecureSkipTLSVerify: server.Insecure, TLSServerName: server.ServerName}
	kc.AuthInfos[learner] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts[learner] = &clientcmdapi.Context{Cluster: "class", AuthInfo: learner, Namespace: ns}
	kc.CurrentContext = learner
	raw, err := clientcmd.Write(*kc)
	if err != nil {
		return err
	}
	return lockfile.WriteAtomic(path, raw, 0o600)
}
