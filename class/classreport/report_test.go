package classreport

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classstats"
	"github.com/labhub/labmate/internal/termtext/termtexttest"
)

// recorded is the recorded class of testdata/class.json (a saved
// export of 30 learners of gpu-incident: 2 of them absent or forged).
func recorded(t testing.TB) class.Class {
	t.Helper()
	f, err := os.Open("testdata/class.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := class.ReadExport(f)
	if err != nil {
		t.Fatal(err)
	}
	return class.FromExport(e)
}

func render(t testing.TB, c class.Class) (string, *html.Node) {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, Input{Class: c, Namespace: "workshop", At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), doc
}

// find is every element under n matching ok.
func find(n *html.Node, ok func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && ok(c) {
			out = append(out, c)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, c string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+c+" ")
}

func byID(doc *html.Node, id string) *html.Node {
	if ns := find(doc, func(n *html.Node) bool { return attr(n, "id") == id }); len(ns) == 1 {
		return ns[0]
	}
	return nil
}

// The report stands alone: no script, no stylesheet or image fetched,
// no URL at all; its charts are inline SVG.
func TestReportIsSelfContained(t *testing.T) {
	raw, doc := render(t, recorded(t))
	for _, bad := range []string{"<script", "http://", "https://", "<link", "<img", "<iframe", "@import", "url("} {
		if strings.Contains(raw, bad) {
			t.Errorf("report holds %q", bad)
		}
	}
	for _, id := range []string{"funnel", "times", "regressions", "hints"} {
		if n := byID(doc, id); n == nil || n.Data != "svg" {
			t.Errorf("no inline svg#%s", id)
		}
	}
	if !strings.Contains(raw, `lang="ko"`) || !strings.Contains(raw, "단계별 흐름") {
		t.Error("report is not in Korean")
	}
}

// Every chart shows the counts classstats computes from the records.
func TestReportChartsShowTheCounts(t *testing.T) {
	c := recorded(t)
	_, doc := render(t, c)
	s := classstats.Summarize(c.Records, 8)
	if s.Learners != 30 || s.Absent != 1 || s.Flagged != 1 || len(s.Steps) != 8 {
		t.Fatalf("fixture: %+v", s)
	}
	bars := func(chart, class string) []int {
		var out []int
		for _, r := range find(byID(doc, chart), func(n *html.Node) bool { return n.Data == "rect" && hasClass(n, "bar") && hasClass(n, class) }) {
			n, err := strconv.Atoi(attr(r, "data-n"))
			if err != nil {
				t.Fatalf("%s %s bar: %v", chart, class, err)
			}
			out = append(out, n)
		}
		return out
	}
	for _, tc := range []struct {
		chart, class string
		want         func(classstats.Step) int
	}{
		{"funnel", "passed", func(s classstats.Step) int { return s.Passed }},
		{"funnel", "on", func(s classstats.Step) int { return s.On }},
		{"hints", "hinted", func(s classstats.Step) int { return s.Hinted }},
		{"hints", "solution", func(s classstats.Step) int { return s.Solutions }},
		{"regressions", "regressed", func(s classstats.Step) int { return s.Regressions }},
	} {
		got := bars(tc.chart, tc.class)
		if len(got) != 8 {
			t.Fatalf("%s: %d %s bars, want 8", tc.chart, len(got), tc.class)
		}
		for i, st := range s.Steps {
			if got[i] != tc.want(st) {
				t.Errorf("%s %s step %d: %d, want %d", tc.chart, tc.class, i+1, got[i], tc.want(st))
			}
		}
	}
	lanes := find(byID(doc, "times"), func(n *html.Node) bool { return hasClass(n, "lane") })
	if len(lanes) != 8 {
		t.Fatalf("%d lanes in the times chart", len(lanes))
	}
	total := 0
	for i, l := range lanes {
		dots := find(l, func(n *html.Node) bool { return hasClass(n, "dot") })
		if len(dots) != len(s.Steps[i].Times) || attr(l, "data-count") != strconv.Itoa(len(dots)) {
			t.Errorf("step %d: %d dots (data-count %s), want %d", i+1, len(dots), attr(l, "data-count"), len(s.Steps[i].Times))
		}
		total += len(dots)
	}
	if total < 50 {
		t.Errorf("only %d times to pass drawn", total)
	}
	rows := find(byID(doc, "learners"), func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-learner") != "" })
	if len(rows) != 30 {
		t.Errorf("%d learner rows, want 30", len(rows))
	}
	checks := find(byID(doc, "steps"), func(n *html.Node) bool { return hasClass(n, "check") })
	if len(checks) == 0 {
		t.Error("no failing check named in the steps table")
	}
}

// Text from the records is escaped: a hostile name neither runs nor
// breaks the page, and a terminal escape is shown as a picture.
func TestReportEscapesRecordText(t *testing.T) {
	c := recorded(t)
	c.Records[0].Name = `<script>alert(1)</script>` + termtexttest.Hostile
	c.Records[1].Steps[c.Records[1].Current-1].Failing = []class.FailingCheck{{ID: `"><svg onload=x>`, Status: "failed"}}
	raw, _ := render(t, c)
	for _, bad := range []string{"<script>alert", "<svg onload", "\x1b"} {
		if strings.Contains(raw, bad) {
			t.Errorf("report carries %q unescaped", bad)
		}
	}
}

// An empty class makes a report too (every chart, no bar longer than
// nothing).
func TestReportOfAnEmptyClass(t *testing.T) {
	raw, doc := render(t, class.Class{Synced: true})
	if byID(doc, "funnel") == nil || strings.Contains(raw, "NaN") {
		t.Errorf("empty report:\n%s", raw)
	}
}

// withRoom is the recorded class where the room kept moving: three
// learners on their step make the same named mistake, two raised hands
// there (acknowledged after 40 s and 95 s), one caught its first steps
// up.
func withRoom(c class.Class) class.Class {
	var on []int
	for i, r := range c.Records {
		if r.Flag == "" && r.Current > 0 {
			on = append(on, i)
		}
	}
	for k, i := range on[:3] {
		r := &c.Records[i]
		s := r.Step(r.Current)
		s.Mistake = "따옴표 없는 플러그인 이름"
		if k < 2 {
			s.Hands, s.AckSeconds = 1, []int{[]int{40, 95}[k]}
		}
	}
	r := &c.Records[on[3]]
	for n := 1; n < r.Current; n++ {
		r.Step(n).CaughtUp = true
	}
	return c
}

// The room's table counts, per step, the hands raised, the median time
// to their acknowledgement, the learners who caught the step up and the
// named mistakes of the learners on it, as classstats counts them.
func TestReportCountsTheRoom(t *testing.T) {
	c := withRoom(recorded(t))
	_, doc := render(t, c)
	s := classstats.Summarize(c.Records, 8)
	rows := find(byID(doc, "room"), func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })
	if len(rows) != 8 {
		t.Fatalf("%d rows in the room's table, want 8", len(rows))
	}
	hands, caught, mistakes := 0, 0, 0
	for i, row := range rows {
		h := find(row, func(n *html.Node) bool { return attr(n, "data-hands") != "" })
		cu := find(row, func(n *html.Node) bool { return attr(n, "data-caught-up") != "" })
		if len(h) != 1 || attr(h[0], "data-hands") != strconv.Itoa(s.Steps[i].Hands) ||
			len(cu) != 1 || attr(cu[0], "data-caught-up") != strconv.Itoa(s.Steps[i].CaughtUp) {
			t.Errorf("step %d: hands %v caught up %v, want %d and %d", i+1, h, cu, s.Steps[i].Hands, s.Steps[i].CaughtUp)
		}
		hands += s.Steps[i].Hands
		caught += s.Steps[i].CaughtUp
		for _, m := range find(row, func(n *html.Node) bool { return hasClass(n, "mistake") }) {
			n, _ := strconv.Atoi(attr(m, "data-n"))
			mistakes += n
		}
	}
	if hands != 2 || caught == 0 || mistakes != 3 {
		t.Errorf("the room counts %d hands, %d caught-up steps, %d learners in named mistakes; want 2, some, 3", hands, caught, mistakes)
	}
	if raw, _ := render(t, c); !strings.Contains(raw, "따옴표 없는 플러그인 이름") {
		t.Error("the named mistake's label is not in the report")
	}
}
