package learner

import (
	"context"
	"sync"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/doctor"
)

// DoctorFinding is doctor's word on the --class kubeconfig at path,
// opened as l (or failing with openErr): can this learner reach the class
// and their own record of one of the labs (the chosen one, or any
// installed one when none is chosen; asked at once).
func DoctorFinding(ctx context.Context, path string, l *Learner, openErr error, labs []string) doctor.Finding {
	f := doctor.Finding{ID: "class", Title: content.Msg("class.doctor.title")}
	if l == nil {
		f.Verdict, f.Detail, f.Fix = doctor.Fail, content.Msg("class.doctor.bad_file", "path", path, "err", Explain(openErr)), content.Msg("class.doctor.fix_file")
		return f
	}
	results := make([]probeResult, len(labs))
	var wg sync.WaitGroup
	for i, lab := range labs {
		wg.Go(func() { results[i] = l.probe(ctx, lab, 5*time.Second) })
	}
	wg.Wait()
	r := results[0]
	for _, res := range results {
		if res.Err == nil {
			r = res
			break
		}
	}
	host := l.Conn.Host()
	switch {
	case r.Err == nil:
		f.Verdict, f.Detail = doctor.OK, content.Msg("class.doctor.ok", "learner", l.ID, "ns", l.Namespace, "server", host)
	case r.Refused:
		f.Verdict, f.Detail, f.Fix = doctor.Fail, content.Msg("class.doctor.refused", "server", host, "err", Explain(r.Err)), content.Msg("class.doctor.fix_refused")
	default:
		f.Verdict, f.Detail, f.Fix = doctor.Warn, content.Msg("class.doctor.unreachable", "server", host, "err", Explain(r.Err)), content.Msg("class.doctor.fix_unreachable")
	}
	return f
}
