package admin

import (
	"strings"
	"time"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
)

// Lines are what Apply did, in Korean, for the instructor: per kind of
// object what was created, kept, changed and deleted; the lab; when the
// learners' tokens end. now is the clock of "in N days".
func (r Result) Lines(outDir string, now time.Time) []string {
	ns := "class.init.done.namespace_kept"
	if r.NamespaceOf.Created > 0 {
		ns = "class.init.done.namespace_created"
	}
	learners := r.Learners.Created + r.Learners.Kept
	out := []string{
		content.Msg("class.init.done.head", "ns", r.Namespace),
		"  " + content.Msg(ns, "ns", r.Namespace),
		"  " + content.Msg("class.init.done.learners", "n", learners, "counts", counts(r.Learners, "")),
		"  " + content.Msg("class.init.done.records", "counts", counts(r.Records, "")),
		"  " + content.Msg("class.init.done.roles", "counts", counts(r.Roles, "")),
		"  " + content.Msg("class.init.done.kubeconfigs", "dir", outDir, "counts", counts(r.Kubeconfigs, "reissued")),
	}
	switch l := r.Lab; {
	case r.LabObject == LabDelete:
		out = append(out, "  "+content.Msg("class.init.done.lab_deleted"))
	case r.LabKept:
		out = append(out, "  "+content.Msg("class.init.done.lab_kept", "lab", l.ID, "version", l.Version))
	case r.LabObject == LabName:
		out = append(out, "  "+content.Msg("class.init.done.lab_named", "lab", l.ID, "version", l.Version))
	case r.LabObject == LabStore:
		out = append(out, "  "+content.Msg("class.cli.lab_stored", "lab", l.ID, "version", l.Version, "size", class.ByteSize(len(l.Bytes)), "sum", l.Sum))
	}
	if r.Legacy {
		out = append(out, content.Msg("class.cli.init_legacy_tokens"))
	}
	if !r.Expires.IsZero() {
		out = append(out, content.Msg("class.init.done.expires", "at", r.Expires.Local().Format("2006-01-02 15:04"),
			"left", r.Expires.Sub(now).Round(time.Minute)))
	}
	return out
}

// counts words a Count: only what happened ("새로 28, 그대로 2").
// changed names its word for Changed ("" for the usual one).
func counts(c Count, changed string) string {
	if changed == "" {
		changed = "changed"
	}
	var parts []string
	for _, p := range []struct {
		key string
		n   int
	}{{"created", c.Created}, {"kept", c.Kept}, {changed, c.Changed}, {"deleted", c.Deleted}} {
		if p.n > 0 {
			parts = append(parts, content.Msg("class.init.count."+p.key, "n", p.n))
		}
	}
	if len(parts) == 0 {
		return content.Msg("class.init.count.none")
	}
	return strings.Join(parts, ", ")
}
