package gpuincident

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/labhub/labmate/checks"
	yamlv3 "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
)

// Step 7: the time-slicing ConfigMap, lab-node-1 advertising GPUs ×
// replicas, and the slot arithmetic.
//
// Rules and sources: steps/07-time-slicing.md, 사실 근거 (NVIDIA GPU
// Operator "Time-Slicing GPUs in Kubernetes": the config's shape,
// GPUs × replicas advertised, no memory or fault isolation).

// The hardware of the lab's story: 4 × A100 40 GiB per node.
const (
	physicalGPUs = 4
	vramPerGPU   = 40
	wantReplicas = 5
)

// slotsReport is slots.txt; step 7 does not forbid spaces around '='.
var slotsReport = checks.ReportFile{Rel: slotsPath, Keys: []string{"PHYSICAL_GPUS", "REPLICAS", "ADVERTISED", "VRAM_PER_GPU_GIB",
	"VRAM_GUARANTEED_PER_SLOT_GIB", "VRAM_SHARED_PER_GPU_GIB", "ISOLATION"}}

// sharingConfig is the NVIDIA device plugin's config file, the part this
// lab uses; other top-level sections are accepted as they are.
type sharingConfig struct {
	Version   string `json:"version,omitempty"`
	Flags     any    `json:"flags,omitempty"`
	Resources any    `json:"resources,omitempty"`
	Imex      any    `json:"imex,omitempty"`
	Sharing   struct {
		TimeSlicing *timeSlicing `json:"timeSlicing,omitempty"`
		MPS         any          `json:"mps,omitempty"`
	} `json:"sharing"`
}

type timeSlicing struct {
	RenameByDefault            *bool            `json:"renameByDefault,omitempty"`
	FailRequestsGreaterThanOne *bool            `json:"failRequestsGreaterThanOne,omitempty"`
	Resources                  []sharedResource `json:"resources"`
}

type sharedResource struct {
	Name     string `json:"name"`
	Rename   string `json:"rename,omitempty"`
	Replicas int    `json:"replicas"`
	Devices  any    `json:"devices,omitempty"`
}

// parseSharing decodes data.any strictly.
func parseSharing(text string) (*sharingConfig, *checks.YAMLProblem) {
	var tree yamlv3.Node
	tp := &tree
	if yamlv3.Unmarshal([]byte(text), &tree) != nil {
		tp = nil
	}
	var c sharingConfig
	if p := checks.DecodeYAMLStrict(text, tp, &c); p != nil {
		return nil, p
	}
	return &c, nil
}

// replicas returns resources[0].replicas when the config has it.
func (c *sharingConfig) replicas() (int, bool) {
	if c == nil || c.Sharing.TimeSlicing == nil || len(c.Sharing.TimeSlicing.Resources) == 0 {
		return 0, false
	}
	return c.Sharing.TimeSlicing.Resources[0].Replicas, true
}

// summary names the fields the lab cares about, for "file vs cluster".
func (c *sharingConfig) summary() string {
	if c == nil || c.Sharing.TimeSlicing == nil {
		return "sharing.timeSlicing=" + msg("cluster.none")
	}
	ts := c.Sharing.TimeSlicing
	fail := msg("cluster.none")
	if ts.FailRequestsGreaterThanOne != nil {
		fail = strconv.FormatBool(*ts.FailRequestsGreaterThanOne)
	}
	var rs []string
	for _, r := range ts.Resources {
		rs = append(rs, fmt.Sprintf("%s×%d", checks.OrNone(msg, r.Name), r.Replicas))
	}
	return "failRequestsGreaterThanOne=" + fail + ", resources=[" + strings.Join(rs, " ") + "]"
}

func evalTimeSlicing(in checks.Input) checks.StepEval {
	var ev checks.StepEval
	cm, m, r := checks.DecodeManifest[corev1.ConfigMap](in, "time-slicing.cm-file", timeSlicingPath, "v1", "ConfigMap")
	ev.Checks = append(ev.Checks, r)
	fileCfg, r := timeSlicingFields(in, m, cm)
	ev.Checks = append(ev.Checks, r)
	fileReplicas, fileOK := fileCfg.replicas()

	byKey, r, slotsRead := checks.ReadReport(in, "time-slicing.slots-format", slotsReport)
	ev.Checks = append(ev.Checks, r)
	if slotsRead {
		ev.Checks = append(ev.Checks, slotsValues(byKey, fileReplicas, fileOK))
	} else {
		ev.Checks = append(ev.Checks, checks.Wait("time-slicing.slots-values", msg("cluster.wait.file", "path", slotsPath)))
	}

	if fileOK {
		ev.Observed = append(ev.Observed, checks.Fact{Label: msg("cluster.fact.replicas_file"), Value: strconv.Itoa(fileReplicas)})
	}
	if !checks.LiveChecksMayRun(in, &ev, "time-slicing") {
		return ev
	}
	liveCfg, r := timeSlicingLive(in, fileCfg)
	ev.Checks = append(ev.Checks, r)
	liveReplicas, liveOK := liveCfg.replicas()
	switch {
	case liveOK:
		ev.Checks = append(ev.Checks, nodeAdvertises(in, "time-slicing.node", timeSlicedNode,
			strconv.Itoa(physicalGPUs*liveReplicas), msg("cluster.node.why_step7", "gpus", physicalGPUs, "replicas", liveReplicas)))
	default:
		ev.Checks = append(ev.Checks, checks.Wait("time-slicing.node", msg("cluster.ts.node_wait")))
	}
	ev.Checks = append(ev.Checks, slotsLive(in, byKey, slotsRead, liveReplicas, liveOK))

	if liveOK {
		ev.Observed = append(ev.Observed, checks.Fact{Label: msg("cluster.fact.replicas_live"), Value: strconv.Itoa(liveReplicas)})
	}
	if liveCfg != nil {
		ev.Observed = append(ev.Observed, checks.Fact{Label: msg("cluster.fact.sharing_live"), Value: liveCfg.summary()})
	}
	if n := checks.Live[*corev1.Node](in, "Node", "", timeSlicedNode); n != nil {
		ev.Observed = append(ev.Observed, checks.Fact{Label: timeSlicedNode + " nvidia.com/gpu",
			Value: "capacity=" + checks.OrNone(msg, gpuAmount(n.Status.Capacity)) + ", allocatable=" + checks.OrNone(msg, gpuAmount(n.Status.Allocatable))})
	}
	return ev
}

// timeSlicingFields checks the ConfigMap file and returns its parsed
// data.any (nil when it could not be read).
func timeSlicingFields(in checks.Input, m *checks.Manifest, cm *corev1.ConfigMap) (*sharingConfig, checks.Result) {
	const id = "time-slicing.cm-fields"
	if m == nil {
		return nil, checks.Wait(id, msg("cluster.wait.manifest", "path", timeSlicingPath))
	}
	fc := checks.ObjectFields(msg, m, cm, timeSlicingName, operatorNamespace)
	raw, ok := cm.Data["any"]
	if !ok {
		var keys []string
		for k := range cm.Data {
			keys = append(keys, k)
		}
		fc.Problem("data", msg("cluster.ts.no_any", "keys", checks.JoinOr(msg, keys, ", ")))
		return nil, fc.Result(id, "")
	}
	cfg, prob := parseSharing(raw)
	if prob != nil {
		fc.Problem("data.any", sharingProblem(in, prob, raw))
		fc.Observe(prob.Err)
		return nil, fc.Result(id, "")
	}
	sharingFields(fc, cfg)
	return cfg, fc.Result(id, msg("cluster.ts.fields_ok"))
}

// sharingProblem says why data.any could not be read, in the lab's words;
// the decoder's own words are what labmate observed.
func sharingProblem(in checks.Input, p *checks.YAMLProblem, text string) string {
	why := p.Why(in, checks.LineAt(text, p.Line))
	switch {
	case p.Kind == "syntax" && p.Line <= 0:
		return msg("cluster.ts.any_syntax_noline", "why", why)
	case p.Kind == "syntax":
		return msg("cluster.ts.any_syntax", "line", p.Line, "why", why)
	case p.Kind == "unknown":
		return msg("cluster.ts.any_unknown", "fields", p.UnknownWords(in))
	}
	return msg("cluster.ts.any_value", "why", why)
}

func sharingFields(fc *checks.FieldCheck, cfg *sharingConfig) {
	ts := cfg.Sharing.TimeSlicing
	if ts == nil {
		fc.Problem("data.any", msg("cluster.ts.no_timeslicing"))
		return
	}
	fail := ""
	if ts.FailRequestsGreaterThanOne != nil {
		fail = strconv.FormatBool(*ts.FailRequestsGreaterThanOne)
	}
	fc.Note("failRequestsGreaterThanOne=true", "failRequestsGreaterThanOne="+checks.OrNone(msg, fail))
	if fail != "true" {
		fc.Problem("data.any", msg("cluster.ts.fail_requests", "got", checks.OrNone(msg, fail)))
	}
	if len(ts.Resources) == 0 {
		fc.Problem("data.any", msg("cluster.ts.no_resources"))
		return
	}
	r0 := ts.Resources[0]
	fc.Note("resources[0]=nvidia.com/gpu×5", fmt.Sprintf("resources[0]=%s×%d", checks.OrNone(msg, r0.Name), r0.Replicas))
	if r0.Name != string(gpuResource) {
		fc.Problem("data.any", msg("cluster.ts.resource_name", "got", checks.OrNone(msg, r0.Name)))
	}
	if r0.Replicas != wantReplicas {
		fc.Problem("data.any", msg("cluster.ts.replicas", "got", r0.Replicas, "want", wantReplicas))
	}
}

// timeSlicingLive compares the live ConfigMap's parsed data.any with the
// file's.
func timeSlicingLive(in checks.Input, file *sharingConfig) (*sharingConfig, checks.Result) {
	const id = "time-slicing.cm-live"
	cm := checks.Live[*corev1.ConfigMap](in, "ConfigMap", operatorNamespace, timeSlicingName)
	want := msg("cluster.ts.live_expect")
	if cm == nil {
		m := msg("cluster.ts.live_missing", "path", checks.Shown(in, timeSlicingPath))
		if checks.Live[*corev1.Namespace](in, "Namespace", "", operatorNamespace) == nil {
			m += msg("cluster.ts.no_namespace", "ns", operatorNamespace)
		}
		return nil, checks.Fail(id, m, want, msg("cluster.absent"), "")
	}
	raw, ok := cm.Data["any"]
	if !ok {
		return nil, checks.Fail(id, msg("cluster.ts.live_no_any"), want, msg("cluster.none"), "")
	}
	cfg, prob := parseSharing(raw)
	if prob != nil {
		return nil, checks.Fail(id, msg("cluster.ts.live_unreadable", "why", sharingProblem(in, prob, raw)), want, prob.Err, "")
	}
	if file != nil && !reflect.DeepEqual(file, cfg) {
		fs, ls := file.summary(), cfg.summary()
		if fs == ls {
			return cfg, checks.Fail(id, msg("cluster.ts.live_differs_other"), fs, ls, timeSlicingPath)
		}
		return cfg, checks.Fail(id, msg("cluster.ts.live_differs", "file", fs, "live", ls), fs, ls, timeSlicingPath)
	}
	fc := checks.NewFieldCheck(msg, &checks.Manifest{})
	sharingFields(fc, cfg)
	if len(fc.Problems()) > 0 {
		return cfg, checks.Fail(id, msg("cluster.ts.live_wrong", "problems", strings.Join(fc.Problems(), " ")), want, cfg.summary(), "")
	}
	return cfg, checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.ts.live_ok"), Expected: want, Observed: cfg.summary()}
}

// slotsValues checks slots.txt against the hardware and the ConfigMap file.
func slotsValues(byKey map[string]checks.KVLine, replicas int, replicasKnown bool) checks.Result {
	const id = "time-slicing.slots-values"
	vals := []checks.ReportValue{
		{Key: "PHYSICAL_GPUS", Want: strconv.Itoa(physicalGPUs), Why: msg("cluster.slots.why_gpus")},
	}
	if replicasKnown {
		vals = append(vals,
			checks.ReportValue{Key: "REPLICAS", Want: strconv.Itoa(replicas), Why: msg("cluster.slots.why_replicas_file")},
			checks.ReportValue{Key: "ADVERTISED", Want: strconv.Itoa(physicalGPUs * replicas), Why: msg("cluster.slots.why_advertised", "gpus", physicalGPUs, "replicas", replicas)})
	}
	vals = append(vals,
		checks.ReportValue{Key: "VRAM_PER_GPU_GIB", Want: strconv.Itoa(vramPerGPU), Why: msg("cluster.slots.why_vram")},
		checks.ReportValue{Key: "VRAM_GUARANTEED_PER_SLOT_GIB", Want: "0", Why: msg("cluster.slots.why_guaranteed"),
			Hint: guaranteedHint(byKey["VRAM_GUARANTEED_PER_SLOT_GIB"].Value, replicas)},
		checks.ReportValue{Key: "VRAM_SHARED_PER_GPU_GIB", Want: strconv.Itoa(vramPerGPU), Why: msg("cluster.slots.why_shared")},
		checks.ReportValue{Key: "ISOLATION", Want: "none", Why: msg("cluster.slots.why_isolation")},
	)
	return checks.CheckReportValues(msg, id, slotsPath, byKey, vals, msg("cluster.slots.values_ok"))
}

// guaranteedHint explains the most common wrong answer: dividing the
// GPU's memory by the replicas, as if time-slicing partitioned it.
func guaranteedHint(got string, replicas int) string {
	n, err := strconv.Atoi(got)
	if err != nil || n == 0 {
		return ""
	}
	if replicas > 0 && n == vramPerGPU/replicas {
		return msg("cluster.slots.divided_hint", "got", n, "replicas", replicas)
	}
	return msg("cluster.slots.guaranteed_hint")
}

// slotsLive ties REPLICAS to the live ConfigMap and ADVERTISED to
// lab-node-1's live amount.
func slotsLive(in checks.Input, byKey map[string]checks.KVLine, fileRead bool, replicas int, replicasKnown bool) checks.Result {
	const id = "time-slicing.slots-live"
	if !fileRead {
		return checks.Wait(id, msg("cluster.wait.file", "path", slotsPath))
	}
	var vals []checks.ReportValue
	if replicasKnown {
		vals = append(vals, checks.ReportValue{Key: "REPLICAS", Want: strconv.Itoa(replicas), Why: msg("cluster.slots.why_replicas_live")})
	}
	if n := checks.Live[*corev1.Node](in, "Node", "", timeSlicedNode); n != nil && gpuAmount(n.Status.Allocatable) != "" {
		vals = append(vals, checks.ReportValue{Key: "ADVERTISED", Want: gpuAmount(n.Status.Allocatable), Why: msg("cluster.slots.why_advertised_live", "node", timeSlicedNode)})
	}
	if len(vals) == 0 {
		return checks.Wait(id, msg("cluster.slots.live_wait", "node", timeSlicedNode))
	}
	return checks.CheckReportValues(msg, id, slotsPath, byKey, vals, msg("cluster.slots.live_ok", "node", timeSlicedNode))
}
