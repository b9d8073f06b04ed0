// Package doctor looks at the learner's environment and says, in Korean,
// what is right and what is wrong with it: the kubeconfig and the API
// server, the lab's nodes and resources, the lab root, the file watcher, the terminal
// and tmux. Every finding that is not right carries the command that fixes
// it. Every probe has its own timeout and the whole run is bounded, so
// doctor answers within a few seconds even when the API server's address
// swallows packets.
package doctor

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labroot"
)

// Verdict is how one finding turned out.
type Verdict string

const (
	OK   Verdict = "ok"   // right
	Warn Verdict = "warn" // works, but worse than it should (colours, tmux keys)
	Fail Verdict = "fail" // labmate or the lab cannot work like this
	Skip Verdict = "skip" // not looked at (no tmux, --no-cluster, the API was unreachable)
)

// Finding is one line of the doctor's screen.
type Finding struct {
	ID string `json:"id"`
	// Lab is the lab a finding is about, when doctor looked at several
	// (no lab chosen): its root, its nodes, its progress.
	Lab     string  `json:"lab,omitempty"`
	Verdict Verdict `json:"verdict"`
	Title   string  `json:"title"`         // what was looked at (Korean)
	Detail  string  `json:"detail"`        // what was seen (Korean)
	Fix     string  `json:"fix,omitempty"` // the command(s) that fix it, one per line
}

// Options say what to look at.
type Options struct {
	// Cluster is the lab cluster as the command line chose it
	// (--kubeconfig, --context: kubectl's loading rules, then the
	// sandbox's); Off (--no-cluster) skips the cluster probes.
	Cluster kube.Target
	// Labs are the labs to check the environment for: the chosen one,
	// or every installed lab when none is chosen.
	Labs []Lab
	// Getenv reads the environment (os.Getenv when nil); tests pass
	// their own so TERM, TMUX and NO_COLOR can be set per case.
	Getenv func(string) string
	// TTY says whether stdout is a terminal.
	TTY bool
	// InotifyDir is where the inotify limits are read
	// (/proc/sys/fs/inotify when empty).
	InotifyDir string
	// Tmux is the tmux binary ("tmux" when empty).
	Tmux string
	// Deadline bounds the whole run (4.5s when zero).
	Deadline time.Duration
	// Proc is /proc, where WSL is recognised (version) and the lab root's
	// mount looked up (self/mountinfo); os.DirFS("/proc") when nil.
	Proc fs.FS
	// BinDir is the sandbox's bin dir, whose binaries are checked against
	// the sha256 they were installed with; "" skips that probe.
	BinDir string
}

// Lab is what one lab needs of the environment.
type Lab struct {
	// ID names the lab on its findings when there are several.
	ID string
	// Root is the lab root in effect and where it was chosen.
	Root labroot.Root
	// Nodes are the lab's node names that must exist.
	Nodes []string
	// ClusterSteps names the lab's steps that need a cluster ("5~8").
	ClusterSteps string
	// StatePath is the progress file; empty skips that probe.
	StatePath string
	// Access are the permissions the lab needs on its cluster (what it
	// declares it watches); each is asked of the API server.
	Access []Access
}

// Access is one permission a lab needs: a verb on a resource, in a
// namespace ("" cluster-wide), of one object by name ("" all). Text
// words it for the finding.
type Access struct {
	Verb, Group, Resource, Namespace, Name string
	Text                                   string
}

func (o *Options) defaults() {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.InotifyDir == "" {
		o.InotifyDir = "/proc/sys/fs/inotify"
	}
	if o.Tmux == "" {
		o.Tmux = "tmux"
	}
	if o.Proc == nil {
		o.Proc = os.DirFS("/proc")
	}
	if o.Deadline <= 0 {
		o.Deadline = 4500 * time.Millisecond
	}
}

// Result is everything doctor found, in screen order.
type Result struct {
	Findings []Finding     `json:"findings"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// OK reports whether nothing failed. Warnings do not fail the run: they
// make labmate look or feel worse, not stop working.
func (r Result) OK() bool {
	for _, f := range r.Findings {
		if f.Verdict == Fail {
			return false
		}
	}
	return true
}

// Count returns how many findings have the verdict.
func (r Result) Count(v Verdict) int {
	n := 0
	for _, f := range r.Findings {
		if f.Verdict == v {
			n++
		}
	}
	return n
}

// probe is one independent group of findings. It must honour ctx; its
// placeholders are what the screen shows if it does not finish in time.
type probe struct {
	placeholders []Finding
	run          func(ctx context.Context) []Finding
}

// probes are every probe of a run: the cluster, then each lab's root,
// the file watcher, each lab's change detection and progress, then the
// terminal, tmux and the script sandbox.
func probes(opts Options) []probe {
	many := len(opts.Labs) > 1
	kubeIDs := []Finding{placeholder("kubeconfig", ""), placeholder("apiserver", "")}
	for _, l := range opts.Labs {
		kubeIDs = append(kubeIDs, forLab(placeholder("nodes", ""), l, many), forLab(placeholder("access", ""), l, many))
	}
	ps := []probe{{kubeIDs, func(ctx context.Context) []Finding { return kubeProbe(ctx, opts) }}}
	perLab := func(id string, run func(Lab) Finding) {
		for _, l := range opts.Labs {
			ps = append(ps, probe{[]Finding{forLab(placeholder(id, ""), l, many)},
				func(context.Context) []Finding { return []Finding{forLab(run(l), l, many)} }})
		}
	}
	perLab("root", rootProbe)
	var watchRoot labroot.Root
	if len(opts.Labs) > 0 {
		watchRoot = opts.Labs[0].Root
	}
	ps = append(ps, probe{[]Finding{placeholder("watcher", ""), placeholder("inotify", "")},
		func(ctx context.Context) []Finding { return watcherProbe(ctx, watchRoot, opts) }})
	perLab("polling", pollingProbe)
	for _, l := range opts.Labs {
		ps = append(ps, probe{[]Finding{forLab(placeholder("wsl", ""), l, many)}, func(context.Context) []Finding {
			out := wslProbe(l, opts.Proc)
			for i := range out {
				out[i] = forLab(out[i], l, many)
			}
			return out
		}})
	}
	perLab("state", stateProbe)
	return append(ps,
		probe{[]Finding{placeholder("terminal", ""), placeholder("locale", "")}, func(context.Context) []Finding { return terminalProbe(opts) }},
		probe{[]Finding{placeholder("tmux", "")}, func(ctx context.Context) []Finding { return tmuxProbe(ctx, opts) }},
		probe{[]Finding{placeholder("sandbox", "")}, func(context.Context) []Finding { return []Finding{sandboxProbe()} }},
		probe{[]Finding{placeholder("binaries", "")}, func(context.Context) []Finding { return binariesProbe(opts.BinDir) }},
	)
}

// placeholder is a finding with only its place: ID and title.
func placeholder(id, lab string) Finding { return Finding{ID: id, Lab: lab, Title: title(id)} }

// forLab names the lab on a finding about it when there are several.
func forLab(f Finding, l Lab, many bool) Finding {
	if many {
		f.Lab, f.Title = l.ID, content.Msg("ops.doctor.title_lab", "title", f.Title, "lab", l.ID)
	}
	return f
}

// Run looks at everything at once and returns within opts.Deadline, plus
// a few milliseconds. A probe that did not answer in time is a failure
// that says so.
func Run(ctx context.Context, opts Options) Result {
	opts.defaults()
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()

	probes := probes(opts)
	results := make([]chan []Finding, len(probes))
	for i, p := range probes {
		ch := make(chan []Finding, 1)
		results[i] = ch
		go func() {
			defer func() {
				if r := recover(); r != nil {
					f := p.placeholders[0]
					f.Verdict, f.Detail = Fail, content.Msg("ops.doctor.panic", "err", fmt.Sprint(r))
					ch <- []Finding{f}
				}
			}()
			ch <- p.run(ctx)
		}()
	}
	var res Result
	for i, ch := range results {
		select {
		case fs := <-ch:
			res.Findings = append(res.Findings, fs...)
		case <-ctx.Done():
			// Take what finished in the same instant; report the rest.
			select {
			case fs := <-ch:
				res.Findings = append(res.Findings, fs...)
			default:
				for _, f := range probes[i].placeholders {
					f.Verdict, f.Detail = Fail, content.Msg("ops.doctor.timed_out", "timeout", opts.Deadline.Round(100*time.Millisecond))
					res.Findings = append(res.Findings, f)
				}
			}
		}
	}
	res.Elapsed = time.Since(start)
	return res
}

func title(id string) string { return content.Msg("ops.doctor.title." + id) }

// finding builds one line; fix is the command text (see fix), if any.
func finding(id string, v Verdict, detail string, fix ...string) Finding {
	return Finding{ID: id, Verdict: v, Title: title(id), Detail: detail, Fix: strings.TrimSpace(strings.Join(fix, "\n"))}
}

// fix returns the commands that fix a problem, kept with the Korean text
// in content (a comment after # explains a line).
func fix(key string, kv ...any) string { return content.Msg("ops.doctor.fix."+key, kv...) }

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}

var width = runewidth.Condition{EastAsianWidth: false}

func displayWidth(s string) int { return width.StringWidth(s) }

// Write prints the result as one screen of Korean text.
func Write(w io.Writer, r Result) error {
	var b strings.Builder
	b.WriteString(content.Msg("ops.doctor.heading") + "\n\n")
	width := 0
	for _, f := range r.Findings {
		if n := displayWidth(f.Title); n > width {
			width = n
		}
	}
	for _, f := range r.Findings {
		label := content.Msg("ops.doctor.verdict." + string(f.Verdict))
		fmt.Fprintf(&b, "[%s] %s%s  %s\n", label, f.Title, strings.Repeat(" ", width-displayWidth(f.Title)),
			strings.ReplaceAll(f.Detail, "\n", "\n       "))
		if f.Fix != "" && f.Verdict != OK && f.Verdict != Skip {
			fmt.Fprintf(&b, "       %s\n", content.Msg("ops.doctor.fix_heading"))
			for _, line := range strings.Split(f.Fix, "\n") {
				fmt.Fprintf(&b, "         %s\n", line)
			}
		}
	}
	b.WriteString("\n")
	if r.OK() && r.Count(Warn) == 0 {
		b.WriteString(content.Msg("ops.doctor.summary_ok", "elapsed", r.Elapsed.Round(time.Millisecond)) + "\n")
	} else {
		b.WriteString(content.Msg("ops.doctor.summary", "fail", r.Count(Fail), "warn", r.Count(Warn),
			"elapsed", r.Elapsed.Round(time.Millisecond)) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
