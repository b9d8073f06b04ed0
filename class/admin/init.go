package admin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// A class is set up in two steps, so that nothing of a running class
// changes unseen: Plan reads what the namespace holds and says what init
// would create, keep, change and delete (it writes nothing); the
// instructor confirms what would be lost (NeedsConfirm); Apply does it
// and says what it did.

// InitConfig sets a class up.
type InitConfig struct {
	// Conn is the instructor's connection: the learners' kubeconfigs
	// point at its server (or Server) with its CA.
	Conn      kube.Conn
	Namespace string
	Learners  []Entry
	// Labs are the labs of the class; Ship is the one it carries (nil
	// when none travels: one built-in lab is then named in the lab
	// object, so a learner's labmate opens it without --lab).
	Labs []string
	Ship *class.LabArchive
	// OutDir receives one kubeconfig per learner, <learner>.kubeconfig.
	OutDir string
	// TokenTTL is how long the learners' tokens live (DefaultTokenTTL
	// when zero).
	TokenTTL time.Duration
	// Server is the API server address written into the learners'
	// kubeconfigs; "" is the instructor's own (Conn's).
	Server string
	// Reissue writes every learner's kubeconfig with a new token, even
	// one whose file still holds a good one.
	Reissue bool
	// Workers bounds concurrent learners (8 when 0).
	Workers int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// LearnerFile is one learner's kubeconfig after init.
type LearnerFile struct {
	Learner string
	Path    string
	// Written is false when the file was kept as it was (its token
	// still good for KeepTokenFor).
	Written bool
	// Legacy is true when the token is a long-lived Secret token because
	// the API server cannot issue bound tokens (TokenRequest).
	Legacy bool
	// Expires is when the token ends (zero: it does not).
	Expires time.Time
}

// KeepTokenFor is how long a learner's kubeconfig must still be good for
// init to keep it rather than write a new one.
const KeepTokenFor = 12 * time.Hour

// Plan is what init would do to the class namespace.
type Plan struct {
	cfg InitConfig
	// NamespaceExists: the namespace is there (or could not be looked
	// at, which a namespace's admin may not: init then does not try to
	// make it).
	NamespaceExists bool
	// Existing: the namespace holds a class already.
	Existing bool
	// Learners are the class's learners after init, in roster order.
	Learners []Learner
	// Add, Keep and Remove are slots: learners init makes, keeps, and
	// deletes (with their accounts, tokens, records and kubeconfigs).
	Add, Keep, Remove []string
	// Renamed are kept slots whose roster name changes.
	Renamed []string
	// LabsBefore are the class's labs before (none for a new class).
	LabsBefore []string
	// DropRecords are record objects init deletes: records of a lab the
	// class is no longer for, and of learners removed; DropJoined counts
	// those a learner's labmate wrote to (progress that goes).
	DropRecords []string
	DropJoined  int
	// LabObject is what happens to the class's lab object, LabBefore the
	// lab it named ("" for none).
	LabObject LabChange
	LabBefore string

	records map[string]bool // record objects there now
	had     map[string]bool // learner slots there now
}

// LabChange is what init does to the lab object.
type LabChange string

const (
	// LabNone: there is none, and none is needed (several labs).
	LabNone LabChange = ""
	// LabStore: the lab the class carries is stored (or replaced).
	LabStore LabChange = "store"
	// LabName: the lab object names the built-in lab the class is for.
	LabName LabChange = "name"
	// LabDelete: the lab object there names another lab and the class
	// is now for several: it goes, so that no learner is sent to it.
	LabDelete LabChange = "delete"
)

// LabsChanged reports whether the class was for other labs before.
func (p Plan) LabsChanged() bool {
	return len(p.LabsBefore) > 0 && !slices.Equal(sorted(p.LabsBefore), sorted(p.cfg.Labs))
}

// NeedsConfirm reports whether Apply would delete or change something
// of the class as it runs: learners removed (their kubeconfigs stop
// working), records deleted, the class's lab replaced by another. The
// instructor confirms it first.
func (p Plan) NeedsConfirm() bool {
	return len(p.Remove) > 0 || len(p.DropRecords) > 0 || p.Existing && p.LabsChanged()
}

// Changes are the lines (Korean) saying what NeedsConfirm is about.
func (p Plan) Changes() []string {
	var out []string
	ns := p.cfg.Namespace
	if p.Existing && p.LabsChanged() {
		out = append(out, content.Msg("class.init.change_labs", "ns", ns, "before", strings.Join(p.LabsBefore, ", "), "after", strings.Join(p.cfg.Labs, ", ")))
	}
	if len(p.Remove) > 0 {
		out = append(out, content.Msg("class.init.change_remove", "n", len(p.Remove), "who", someOf(p.Remove, 8)))
	}
	if len(p.DropRecords) > 0 {
		out = append(out, content.Msg("class.init.change_records", "n", len(p.DropRecords), "joined", p.DropJoined))
	}
	return out
}

// someOf lists at most n of names, then how many more.
func someOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + content.Msg("class.init.and_more", "n", len(names)-n)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// NamespaceDenied refuses a class where the instructor may not work: the
// namespace cannot be read (and so not checked), or cannot be made.
type NamespaceDenied struct {
	Namespace string
	// Create is true when the namespace is missing and making it was
	// refused.
	Create bool
	Err    error
}

func (e NamespaceDenied) Error() string {
	key := "class.init.denied_ns"
	if e.Create {
		key = "class.init.denied_create_ns"
	}
	return content.Msg(key, "ns", e.Namespace, "err", kube.Explain(e.Err))
}

func (e NamespaceDenied) Unwrap() error { return e.Err }

// PlanInit reads the class namespace and plans init. It writes nothing.
func PlanInit(ctx context.Context, cfg InitConfig) (Plan, error) {
	cfg = cfg.withDefaults()
	p := Plan{cfg: cfg, records: map[string]bool{}, had: map[string]bool{}}
	cs, err := cfg.Conn.Typed()
	if err != nil {
		return Plan{}, err
	}
	ns := cfg.Namespace
	if p.NamespaceExists, err = namespaceThere(ctx, cs, ns); err != nil {
		return Plan{}, err
	}
	objs, err := listClass(ctx, cs, ns)
	if err != nil {
		if apierrors.IsForbidden(err) {
			return Plan{}, NamespaceDenied{Namespace: ns, Err: err}
		}
		return Plan{}, err
	}
	for _, sa := range objs.learners {
		p.had[sa] = true
	}
	p.Existing = len(p.had) > 0 || len(objs.records) > 0 || objs.hasInfo
	p.LabsBefore = objs.info.Labs
	if len(p.LabsBefore) == 0 {
		p.LabsBefore = objs.recordLabs()
	}
	p.LabBefore = objs.lab.ID
	p.Learners = assign(cfg.Learners, objs.info.Names, sortedKeys(p.had))
	now := p.slots(objs.info.Names)
	p.dropRecords(objs.records, now)
	switch {
	case cfg.Ship != nil:
		p.LabObject = LabStore
	case len(cfg.Labs) == 1:
		p.LabObject = LabName
	case objs.lab.ID != "":
		p.LabObject = LabDelete
	}
	return p, nil
}

// withDefaults fills what the caller left zero.
func (cfg InitConfig) withDefaults() InitConfig {
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// namespaceThere says whether the class namespace is there.
func namespaceThere(ctx context.Context, cs kube.Interface, ns string) (bool, error) {
	switch _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); {
	case err == nil, apierrors.IsForbidden(err):
		// A namespace's admin may read their namespace (the API server
		// authorizes a get of namespace N as a request in N); one who
		// may not is told below, when its objects cannot be listed.
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	default:
		return false, err
	}
}

// slots sorts the learners' slots into Add, Keep (and Renamed, against
// the roster names the class had) and Remove, and returns the slots the
// class has after init.
func (p *Plan) slots(names map[string]string) map[string]bool {
	now := map[string]bool{}
	for _, l := range p.Learners {
		now[l.ID] = true
		if p.had[l.ID] {
			p.Keep = append(p.Keep, l.ID)
			if names[l.ID] != l.Name {
				p.Renamed = append(p.Renamed, l.ID)
			}
		} else {
			p.Add = append(p.Add, l.ID)
		}
	}
	for _, id := range sortedKeys(p.had) {
		if !now[id] {
			p.Remove = append(p.Remove, id)
		}
	}
	return now
}

// dropRecords lists the records init deletes: those of a learner the
// class no longer has or of a lab it is no longer for.
func (p *Plan) dropRecords(records map[string]bool, now map[string]bool) {
	for _, name := range sortedKeys(records) {
		p.records[name] = true
		learner, lab, _ := class.SplitObjectName(name)
		if now[learner] && slices.Contains(p.cfg.Labs, lab) {
			continue
		}
		p.DropRecords = append(p.DropRecords, name)
		if records[name] {
			p.DropJoined++
		}
	}
}

// classObjects is what a class namespace holds of a class.
type classObjects struct {
	// learners are the slots of the ServiceAccounts init made.
	learners []string
	// records are the record objects init made, and whether a learner's
	// labmate wrote to each (it has steps).
	records map[string]bool
	// acks are the board's acknowledgement objects (class.AckObject).
	acks    []string
	info    class.Info
	hasInfo bool
	lab     class.LabArchive
	labObj  bool
}

// recordLabs are the labs of the records, sorted.
func (o classObjects) recordLabs() []string {
	set := map[string]bool{}
	for name := range o.records {
		_, lab, _ := class.SplitObjectName(name)
		set[lab] = true
	}
	return sortedKeys(set)
}

// listClass reads what the namespace holds of a class: one list of its
// ConfigMaps, one of its ServiceAccounts.
func listClass(ctx context.Context, cs kube.Interface, ns string) (classObjects, error) {
	o := classObjects{records: map[string]bool{}}
	cms, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return o, err
	}
	for i := range cms.Items {
		cm := &cms.Items[i]
		switch {
		case cm.Name == class.InfoObject:
			o.info, o.hasInfo = class.ReadInfo(cm)
		case cm.Name == class.LabObject:
			o.lab, o.labObj = class.LabMeta(cm), true
		case cm.Labels[class.LabelAck] == "true" && cm.Labels[class.LabelClass] == "true":
			o.acks = append(o.acks, cm.Name)
		case initMade(cm.Labels):
			if _, _, ok := class.SplitObjectName(cm.Name); ok && cm.Labels[class.LabelRecord] == "true" {
				r, err := class.Unmarshal([]byte(cm.Data[class.DataKey]))
				o.records[cm.Name] = err != nil || len(r.Steps) > 0
			}
		}
	}
	sas, err := cs.CoreV1().ServiceAccounts(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{class.LabelClass: "true"}.String()})
	if err != nil {
		return o, err
	}
	for _, sa := range sas.Items {
		if id := sa.Labels[class.LabelLearner]; id == sa.Name && class.ValidLearner(id) {
			o.learners = append(o.learners, id)
		}
	}
	return o, nil
}

// initMade: the labels init puts on what it makes.
func initMade(l map[string]string) bool { return l[class.LabelClass] == "true" }

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// Init plans and applies a class that needs no question: a new one, or
// one that only grows (NeedsConfirm is an Unconfirmed error, nothing
// done).
func Init(ctx context.Context, cfg InitConfig) (Result, error) {
	p, err := PlanInit(ctx, cfg)
	if err != nil {
		return Result{}, err
	}
	if p.NeedsConfirm() {
		return Result{}, Unconfirmed{Plan: p}
	}
	return Apply(ctx, p)
}

// Unconfirmed refuses a change of a running class nobody confirmed.
type Unconfirmed struct{ Plan Plan }

func (e Unconfirmed) Error() string {
	return strings.Join(append(e.Plan.Changes(), content.Msg("class.cli.init_would_change", "ns", e.Plan.cfg.Namespace)), "\n")
}

// Count is what happened to one kind of object.
type Count struct{ Created, Kept, Changed, Deleted int }

func (c *Count) add(o Count) {
	c.Created += o.Created
	c.Kept += o.Kept
	c.Changed += o.Changed
	c.Deleted += o.Deleted
}

// Result is what Apply did.
type Result struct {
	Namespace   string
	NamespaceOf Count
	Learners    Count // ServiceAccounts
	Records     Count
	Roles       Count // a Role and its RoleBinding per learner
	Kubeconfigs Count // Changed: written again with a new token
	LabObject   LabChange
	// LabKept: the lab object already held what it had to.
	LabKept bool
	Lab     class.LabArchive
	Files   []LearnerFile
	// Legacy: the API server issued no bound token; learners got
	// long-lived token Secrets.
	Legacy bool
	// Expires is when the first of the learners' tokens ends (zero:
	// none does).
	Expires time.Time
}

// Apply does what the plan says: the namespace, the class object, for
// each learner a ServiceAccount, the records (one per lab), a Role that
// may get and patch exactly those records and read the lab object (RBAC
// cannot limit create by name, so learners never create), its
// RoleBinding and a kubeconfig; then what goes (removed learners, records
// of other labs) and last the lab object.
func Apply(ctx context.Context, p Plan) (Result, error) {
	cfg := p.cfg
	res := Result{Namespace: cfg.Namespace, LabObject: p.LabObject}
	cs, err := cfg.Conn.Typed()
	if err != nil {
		return res, err
	}
	if err := os.MkdirAll(cfg.OutDir, 0o700); err != nil {
		return res, err
	}
	ns := cfg.Namespace
	if err := ensureNamespace(ctx, cs, p, &res); err != nil {
		return res, err
	}
	if err := writeInfo(ctx, cs, ns, cfg.Labs, p.Learners); err != nil {
		return res, fmt.Errorf("%s: %w", class.InfoObject, err)
	}
	if err := initLearners(ctx, cs, p, &res); err != nil {
		return res, err
	}
	del := deleter{cs: cs, ns: ns}
	if err := removeLearners(ctx, del, p, &res); err != nil {
		return res, err
	}
	dropped := make([]bool, len(p.DropRecords))
	err = parallel(ctx, len(p.DropRecords), cfg.Workers, func(i int) (err error) {
		dropped[i], err = del.configMap(ctx, p.DropRecords[i])
		return err
	})
	for _, d := range dropped {
		if d {
			res.Records.Deleted++
		}
	}
	if err != nil {
		return res, err
	}
	res.Lab, res.LabKept, err = applyLab(ctx, cs, p)
	return res, err
}

// ensureNamespace makes the class namespace unless the plan found it.
func ensureNamespace(ctx context.Context, cs kube.Interface, p Plan, res *Result) error {
	ns := p.cfg.Namespace
	if p.NamespaceExists {
		res.NamespaceOf.Kept = 1
		return nil
	}
	o := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{class.LabelClass: "true"}}}
	_, err := cs.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{FieldManager: class.InitFieldManager})
	switch {
	case err == nil:
		res.NamespaceOf.Created = 1
	case apierrors.IsAlreadyExists(err):
		res.NamespaceOf.Kept = 1
	case apierrors.IsForbidden(err):
		return NamespaceDenied{Namespace: ns, Create: true, Err: err}
	default:
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	return nil
}

// initLearners makes or keeps every learner's account, role, records
// and kubeconfig, and counts them into res (also when some fail).
func initLearners(ctx context.Context, cs kube.Interface, p Plan, res *Result) error {
	server := p.cfg.Server
	if server == "" {
		server = p.cfg.Conn.Host()
	}
	outs := make([]learnerResult, len(p.Learners))
	err := parallel(ctx, len(p.Learners), p.cfg.Workers, func(i int) error {
		var err error
		outs[i], err = initLearner(ctx, p, cs, server, p.Learners[i].ID)
		return err
	})
	for _, o := range outs {
		res.Learners.add(o.sa)
		res.Records.add(o.records)
		res.Roles.add(o.role)
		res.Kubeconfigs.add(o.kubeconfig)
		if o.file.Path != "" {
			res.Files = append(res.Files, o.file)
			res.Legacy = res.Legacy || o.file.Legacy
			if e := o.file.Expires; !e.IsZero() && (res.Expires.IsZero() || e.Before(res.Expires)) {
				res.Expires = e
			}
		}
	}
	return err
}

// removeLearners deletes the learners the plan removes, and counts them
// into res (also when some fail).
func removeLearners(ctx context.Context, del deleter, p Plan, res *Result) error {
	gone := make([]Gone, len(p.Remove))
	err := parallel(ctx, len(p.Remove), p.cfg.Workers, func(i int) (err error) {
		gone[i], err = del.learner(ctx, p.Remove[i], p.cfg.OutDir)
		return err
	})
	for _, g := range gone {
		res.Learners.Deleted += g.Learners
		res.Roles.Deleted += g.Roles
		res.Kubeconfigs.Deleted += g.Kubeconfigs
	}
	return err
}

// parallel runs fn(0..n-1) on at most workers goroutines and joins the
// errors.
func parallel(ctx context.Context, n, workers int, fn func(i int) error) error {
	errs := make([]error, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range jobs {
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				errs[i] = fn(i)
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return errors.Join(errs...)
}

// writeInfo writes the class object: the labs and the roster's names.
func writeInfo(ctx context.Context, cs kube.Interface, ns string, labs []string, learners []Learner) error {
	names := map[string]string{}
	for _, l := range learners {
		if l.Name != "" {
			names[l.ID] = l.Name
		}
	}
	raw, err := class.MarshalInfo(class.Info{Labs: labs, Names: names})
	if err != nil {
		return err
	}
	obj := corev1ac.ConfigMap(class.InfoObject, ns).
		WithLabels(map[string]string{class.LabelClass: "true", class.LabelInfo: "true"}).
		WithData(map[string]string{class.InfoKey: raw})
	_, err = cs.CoreV1().ConfigMaps(ns).Apply(ctx, obj, metav1.ApplyOptions{FieldManager: class.InitFieldManager, Force: true})
	return err
}

// applyLab stores, names or deletes the lab object as planned; kept is
// true when it already held that.
func applyLab(ctx context.Context, cs kube.Interface, p Plan) (a class.LabArchive, kept bool, err error) {
	ns := p.cfg.Namespace
	switch p.LabObject {
	case LabStore:
		a, kept, err = classlab.PushLab(ctx, cs, ns, *p.cfg.Ship)
		if errors.Is(err, class.ErrNoLab) || errors.As(err, new(classlab.LabOtherID)) {
			a, err = classlab.StoreLab(ctx, cs, ns, *p.cfg.Ship)
		}
		return a, kept, err
	case LabName:
		id := p.cfg.Labs[0]
		version := ""
		if l, err := content.Load(id); err == nil {
			version = l.Version
		}
		a = class.NamedLab(id, version)
		if have, err := classlab.FetchLab(ctx, cs, ns); err == nil && have.Builtin && have.ID == a.ID && have.Version == a.Version {
			return have, true, nil
		}
		a, err = classlab.StoreLab(ctx, cs, ns, a)
		return a, false, err
	case LabDelete:
		_, err := deleter{cs: cs, ns: ns}.configMap(ctx, class.LabObject)
		return class.LabArchive{}, false, err
	}
	return class.LabArchive{}, false, nil
}

// learnerResult is what init did for one learner.
type learnerResult struct {
	sa, records, role, kubeconfig Count
	file                          LearnerFile
}

// created counts a create's outcome: made, or there already.
func created(c *Count, what string, learner string, err error) error {
	switch {
	case err == nil:
		c.Created++
	case apierrors.IsAlreadyExists(err):
		c.Kept++
	default:
		return fmt.Errorf("%s %s: %w", learner, what, err)
	}
	return nil
}

// learnerRole is the Role of a learner in a class of labs.
func learnerRole(ns, learner string, labs []string) *rbacv1.Role {
	var names []string
	for _, lab := range labs {
		names = append(names, class.ObjectName(learner, lab))
	}
	return &rbacv1.Role{ObjectMeta: learnerMeta(ns, RoleName(learner), learner), Rules: []rbacv1.PolicyRule{{
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
}

// RoleName is the name of a learner's Role and RoleBinding.
func RoleName(learner string) string { return "labmate-learner-" + learner }

func learnerMeta(ns, name, learner string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{class.LabelClass: "true", class.LabelLearner: learner}}
}

func initLearner(ctx context.Context, p Plan, cs kube.Interface, server, learner string) (learnerResult, error) {
	var out learnerResult
	cfg := p.cfg
	ns := cfg.Namespace
	co := metav1.CreateOptions{FieldManager: class.InitFieldManager}
	_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: learnerMeta(ns, learner, learner)}, co)
	if err := created(&out.sa, "serviceaccount", learner, err); err != nil {
		return out, err
	}
	for _, lab := range cfg.Labs {
		name := class.ObjectName(learner, lab)
		if p.records[name] {
			out.records.Kept++
			continue
		}
		raw, err := class.Marshal(class.NewRecord(class.Identity{Learner: learner, Lab: lab}))
		if err != nil {
			return out, err
		}
		cm := &corev1.ConfigMap{ObjectMeta: learnerMeta(ns, name, learner), Data: map[string]string{class.DataKey: string(raw)}}
		cm.Labels[class.LabelRecord] = "true"
		cm.Labels[class.LabelLab] = lab
		_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, co)
		if err := created(&out.records, "record", learner, err); err != nil {
			return out, err
		}
	}
	if err := ensureRole(ctx, cs, &out.role, learnerRole(ns, learner, cfg.Labs)); err != nil {
		return out, fmt.Errorf("%s role: %w", learner, err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: learnerMeta(ns, RoleName(learner), learner),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: RoleName(learner)},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: learner, Namespace: ns}},
	}
	if err := ensureBinding(ctx, cs, rb); err != nil {
		return out, fmt.Errorf("%s rolebinding: %w", learner, err)
	}
	path := filepath.Join(cfg.OutDir, learner+".kubeconfig")
	if !cfg.Reissue && p.had[learner] {
		if f, ok := keptKubeconfig(path, server, ns, learner, cfg.Now()); ok {
			out.kubeconfig.Kept++
			out.file = f
			return out, nil
		}
	}
	token, expires, legacy, err := learnerToken(ctx, cs, ns, learner, cfg.TokenTTL)
	if err != nil {
		return out, fmt.Errorf("%s token: %w", learner, err)
	}
	_, statErr := os.Stat(path)
	if err := writeKubeconfig(path, cfg.Conn.Config(), server, ns, learner, token); err != nil {
		return out, err
	}
	if statErr == nil {
		out.kubeconfig.Changed++
	} else {
		out.kubeconfig.Created++
	}
	out.file = LearnerFile{Learner: learner, Path: path, Written: true, Legacy: legacy, Expires: expires}
	return out, nil
}

// ensureRole creates the Role, or makes the one there say what it must
// (a class whose labs changed: its records are other objects).
func ensureRole(ctx context.Context, cs kube.Interface, c *Count, role *rbacv1.Role) error {
	roles := cs.RbacV1().Roles(role.Namespace)
	_, err := roles.Create(ctx, role, metav1.CreateOptions{FieldManager: class.InitFieldManager})
	if !apierrors.IsAlreadyExists(err) {
		if err == nil {
			c.Created++
		}
		return err
	}
	have, err := roles.Get(ctx, role.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(have.Rules, role.Rules) {
		c.Kept++
		return nil
	}
	have.Rules = role.Rules
	if _, err := roles.Update(ctx, have, metav1.UpdateOptions{FieldManager: class.InitFieldManager}); err != nil {
		return err
	}
	c.Changed++
	return nil
}

// ensureBinding creates the RoleBinding, or replaces one that binds
// something else (its role is immutable).
func ensureBinding(ctx context.Context, cs kube.Interface, rb *rbacv1.RoleBinding) error {
	rbs := cs.RbacV1().RoleBindings(rb.Namespace)
	co := metav1.CreateOptions{FieldManager: class.InitFieldManager}
	_, err := rbs.Create(ctx, rb, co)
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	have, err := rbs.Get(ctx, rb.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(have.RoleRef, rb.RoleRef) && equality.Semantic.DeepEqual(have.Subjects, rb.Subjects) {
		return nil
	}
	if err := rbs.Delete(ctx, rb.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	_, err = rbs.Create(ctx, rb, co)
	return err
}

// learnerToken asks for a bound token (TokenRequest), and says when it
// ends: the API server may cap what was asked for
// (--service-account-max-token-expiration). An API server without a
// service-account signing key cannot issue those; then it falls back to
// a long-lived token Secret filled by the token controller.
func learnerToken(ctx context.Context, cs kube.Interface, ns, sa string, ttl time.Duration) (token string, expires time.Time, legacy bool, err error) {
	secs := int64(ttl / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &secs},
	}, metav1.CreateOptions{})
	if err == nil && tr.Status.Token != "" {
		return tr.Status.Token, tr.Status.ExpirationTimestamp.Time, false, nil
	}
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
		return "", time.Time{}, false, err
	}
	name := sa + "-token"
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{corev1.ServiceAccountNameKey: sa},
			Labels: map[string]string{class.LabelClass: "true", class.LabelLearner: sa}},
		Type: corev1.SecretTypeServiceAccountToken,
	}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{FieldManager: class.InitFieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", time.Time{}, false, err
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		s, err := cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		token = string(s.Data[corev1.ServiceAccountTokenKey])
		return token != "", nil
	})
	return token, time.Time{}, true, err
}
