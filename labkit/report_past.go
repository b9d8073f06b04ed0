package labkit

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// A report check with `remember = true` keeps what it proved: once the
// file's values equalled what labmate computed from the cluster, that
// content stays right (remembered by its hash, in the state file), so the
// learner fixing the incident afterwards does not turn a correct report
// red. Editing the file asks again.

// reportHash is the remembered identity of a report's content; "" when
// the file cannot be read.
func reportHash(snap *observe.Snapshot, rel string) string {
	f, ok := snap.Files[rel]
	if !ok || f.State != observe.FilePresent {
		return ""
	}
	sum := sha256.Sum256(f.Content)
	return hex.EncodeToString(sum[:])
}

// rememberReport records the report's content when it matches the live
// cluster now (and the cluster is synced: stale data proves nothing).
func (d *reportCheck) Remember(snap *observe.Snapshot, w *checks.Witness, m moment, cv *view) bool {
	if !d.Keep || snap.Cluster.State != observe.ClusterSynced || !m.counts(false, snap.Time) {
		return false
	}
	hash := reportHash(snap, d.Path)
	if hash == "" {
		return false
	}
	if f, known := w.Get(d.key()); known && f.Value == hash {
		return false
	}
	if r, _ := d.evalLive(checks.Input{Snap: snap}, cv); r.Status != checks.Passed {
		return false
	}
	return w.Set(d.key(), checks.WitnessFact{Value: hash, Seen: snap.Time})
}

// Remembers says the report keeps what it proved.
func (d *reportCheck) Remembers() bool { return d.Keep }

// key is where the check's memory is kept.
func (d *reportCheck) key() string { return d.step + "/" + d.spec.ID }

// Eval is the live comparison, or, with remember, the memory of this
// very content having matched.
func (d *reportCheck) Eval(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	r, fact := d.evalLive(in, cv)
	if !d.Keep || r.Status == checks.Passed {
		return r, fact
	}
	f, seen := in.Witness.Get(d.key())
	if !seen || f.Value != reportHash(in.Snap, d.Path) {
		return r, fact
	}
	when := f.Seen.Local().Format("15:04:05")
	past := checks.Pass(d.id, in.Msg("labkit.report.ok_past", "path", checks.Shown(in, d.Path), "when", when))
	past.Observed = in.Msg("labkit.witness.seen", "when", when)
	return past, fact
}
