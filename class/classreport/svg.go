package classreport

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
	"time"

	"github.com/labhub/labmate/class/classstats"
	"github.com/labhub/labmate/content"
)

// Chart geometry, in SVG user units: a chart is chartWidth wide and
// scales to its container (a phone's width included); each step's label
// sits on its own line above its bars so that the bars keep the width.
const (
	chartWidth = 400
	labelH     = 18
	barH       = 12
	barGap     = 3
	rowGap     = 10
	barX       = 0
	countW     = 44
)

// series is one bar of each step's group: its CSS class (the colour and
// what a test finds it by), its legend and each step's value.
type series struct {
	Class  string
	Legend string
	Values []int
}

// groupedBars draws a horizontal bar chart of the steps: per step its
// label, then one bar per series, scaled to of (the class's learners).
// Every bar is a rect with data-step and data-n; a zero is a bar of no
// width, so every step has all its bars.
func groupedBars(id, title string, labels []string, of int, ss []series) template.HTML {
	perRow := labelH + len(ss)*(barH+barGap) + rowGap
	legendH := 22
	h := legendH + perRow*len(labels)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="%s" class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, id, chartWidth, h, esc(title))
	x := 0
	for _, s := range ss {
		fmt.Fprintf(&b, `<rect class="legend %s" x="%d" y="4" width="12" height="12"/><text x="%d" y="15">%s</text>`, s.Class, x, x+16, esc(s.Legend))
		x += 16 + 14*len([]rune(s.Legend)) + 16
	}
	span := float64(chartWidth - barX - countW)
	for i, label := range labels {
		y := legendH + i*perRow
		fmt.Fprintf(&b, `<text class="label" x="0" y="%d">%s</text>`, y+13, esc(label))
		for j, s := range ss {
			n := s.Values[i]
			w := 0.0
			if of > 0 {
				w = span * float64(n) / float64(of)
			}
			by := y + labelH + j*(barH+barGap)
			fmt.Fprintf(&b, `<rect class="bar %s" data-step="%d" data-n="%d" x="%d" y="%d" width="%.1f" height="%d"><title>%s: %d</title></rect>`,
				s.Class, i+1, n, barX, by, w, barH, esc(s.Legend), n)
			fmt.Fprintf(&b, `<text class="count" x="%.1f" y="%d">%d</text>`, float64(barX)+w+4, by+barH-1, n)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text in it went through esc
}

// strip draws each step's times to pass as a strip of dots on one
// minute scale, with the median as a tick: a lane per step (g.lane with
// data-step and data-count, a circle.dot per learner, a line.median).
func strip(id, title string, labels []string, steps []classstats.Step) template.HTML {
	var most time.Duration
	for _, s := range steps {
		most = max(most, s.Slowest())
	}
	scale := niceMinutes(most)
	laneH := labelH + 18 + rowGap
	axisH := 26
	h := axisH + laneH*len(labels)
	left, right := 6.0, float64(chartWidth-10)
	xOf := func(d time.Duration) float64 {
		return left + (right-left)*d.Minutes()/float64(scale)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="%s" class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, id, chartWidth, h, esc(title))
	for _, m := range []int{0, scale / 2, scale} {
		x := xOf(time.Duration(m) * time.Minute)
		anchor := "middle"
		switch m {
		case 0:
			anchor = "start"
		case scale:
			anchor = "end"
		}
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`, x, axisH-4, x, h)
		fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="14" text-anchor="%s">%s</text>`, x, anchor, esc(content.Msg("class.report.minutes", "m", m)))
	}
	for i, s := range steps {
		y := axisH + i*laneH
		fmt.Fprintf(&b, `<text class="label" x="0" y="%d">%s</text>`, y+13, esc(labels[i]))
		cy := y + labelH + 8
		fmt.Fprintf(&b, `<g class="lane" data-step="%d" data-count="%d">`, s.Number, len(s.Times))
		for _, d := range s.Times {
			fmt.Fprintf(&b, `<circle class="dot" cx="%.1f" cy="%d" r="4"><title>%s</title></circle>`, xOf(d), cy, esc(content.Duration(d.Round(time.Second))))
		}
		if len(s.Times) > 0 {
			x := xOf(s.Median())
			fmt.Fprintf(&b, `<line class="median" x1="%.1f" y1="%d" x2="%.1f" y2="%d"><title>%s</title></line>`, x, cy-9, x, cy+9,
				esc(content.Msg("class.report.median_is", "t", content.Duration(s.Median().Round(time.Second)))))
		} else {
			fmt.Fprintf(&b, `<text class="none" x="%.1f" y="%d">%s</text>`, left, cy+4, esc(content.Msg("class.report.no_times")))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text in it went through esc
}

// niceMinutes is the axis's end: d in whole minutes rounded up to 10,
// 20, 30, 60, then whole hours; at least 10.
func niceMinutes(d time.Duration) int {
	m := int(math.Ceil(d.Minutes()))
	for _, n := range []int{10, 20, 30, 60} {
		if m <= n {
			return n
		}
	}
	return (m + 59) / 60 * 60
}

func esc(s string) string { return html.EscapeString(s) }
