package class

import (
	"context"
	"sync"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/doctor"
)

// DoctorFinding is doctor's word on a --class kubeconfig: can this learner
// reach the class and their own record of one of the labs (the chosen
// one, or any installed one when none is chosen; asked at once).
func DoctorFinding(ctx context.Context, path string, labs []string) doctor.Finding {
	f := doctor.Finding{ID: "class", Title: content.Msg("class.doctor.title")}
	results := make([]ProbeResult, len(labs))
	var wg sync.WaitGroup
	for i, lab := range labs {
		wg.Go(func() { results[i] = Probe(ctx, path, lab, 5*time.Second) })
	}
	wg.Wait()
	r := results[0]
	for _, res := range results {
		if res.Err == nil {
			r = res
			break
		}
	}
	switch {
	case r.Learner.Config == nil:
		f.Verdict, f.Detail, f.Fix = doctor.Fail, content.Msg("class.doctor.bad_file", "path", path, "err", Explain(r.Err)), content.Msg("class.doctor.fix_file")
	case r.Err == nil:
		f.Verdict, f.Detail = doctor.OK, content.Msg("class.doctor.ok", "learner", r.Learner.ID, "ns", r.Learner.Namespace, "server", r.Learner.Config.Host)
	case r.Refused:
		f.Verdict, f.Detail, f.Fix = doctor.Fail, content.Msg("class.doctor.refused", "server", r.Learner.Config.Host, "err", Explain(r.Err)), content.Msg("class.doctor.fix_refused")
	default:
		f.Verdict, f.Detail, f.Fix = doctor.Warn, content.Msg("class.doctor.unreachable", "server", r.Learner.Config.Host, "err", Explain(r.Err)), content.Msg("class.doctor.fix_unreachable")
	}
	return f
}
