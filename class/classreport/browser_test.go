package classreport

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/labhub/labmate/class/classstats"
)

var update = flag.Bool("update", false, "rewrite docs/screens/report/*.png")

// Screenshots may differ from their goldens by fonts' antialiasing and
// hinting: a pixel counts as different when a channel moves by more than
// pixelTolerance, and a screenshot fails when more than maxDiffRatio of
// its pixels do. A moved chart or a missing section changes far more.
const (
	pixelTolerance = 48
	maxDiffRatio   = 0.02
)

// chromium is the browser to drive: Debian's chromium (.ci/run installs
// it). Without it the test fails on CI and skips, saying so, elsewhere.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH: the report's browser test cannot run (.ci/run installs Debian's chromium)")
	}
	t.Skip("no chromium on PATH: skipping the report's browser test (apt-get install chromium fonts-noto-cjk to run it)")
	return ""
}

// TestReportInChromium opens the report of the recorded class in
// headless Chromium: no console error or exception, every chart present
// with the counts the records give (read from the DOM), and screenshots
// at a laptop's 1280x800 and a phone's 390x844 matching the goldens in
// docs/screens/report/ (shown in the README and CLASS.md):
//
//	go test ./class/classreport -run TestReportInChromium -update
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	c := withRoom(recorded(t))
	raw, _ := render(t, c)
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("hide-scrollbars", true), chromedp.Flag("font-render-hinting", "none"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The browser lives as long as the context of the first call: start
	// it on one without a deadline, then bound the test's actions.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	consoleCtx, stopConsole := context.WithCancel(ctx)
	messages := chromedp.Console(consoleCtx)
	consoleDone := make(chan struct{})
	go func() {
		defer close(consoleDone)
		for msg, err := range messages {
			if err != nil {
				return
			}
			if msg.Type == chromedp.ConsoleError || msg.IsException() {
				mu.Lock()
				problems = append(problems, msg.String())
				mu.Unlock()
			}
		}
	}()

	type counts struct {
		Passed, On, Hinted, Solution, Regressed, Lanes, Dots []int
		Hands, CaughtUp                                      []int
		Rows                                                 int
		FontsReady                                           bool
	}
	const read = `(() => {
		const ns = sel => [...document.querySelectorAll(sel)].map(e => +e.dataset.n);
		return {
			Passed: ns('#funnel rect.bar.passed'), On: ns('#funnel rect.bar.on'),
			Hinted: ns('#hints rect.bar.hinted'), Solution: ns('#hints rect.bar.solution'),
			Regressed: ns('#regressions rect.bar.regressed'),
			Lanes: [...document.querySelectorAll('#times g.lane')].map(g => +g.dataset.count),
			Dots: [...document.querySelectorAll('#times g.lane')].map(g => g.querySelectorAll('circle.dot').length),
			Hands: [...document.querySelectorAll('#room td[data-hands]')].map(e => +e.dataset.hands),
			CaughtUp: [...document.querySelectorAll('#room td[data-caught-up]')].map(e => +e.dataset.caughtUp),
			Rows: document.querySelectorAll('#learners tbody tr').length,
			FontsReady: document.fonts.status === 'loaded',
		};
	})()`
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("#learners"))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[counts](read))
	if err != nil {
		t.Fatal(err)
	}
	s := classstats.Summarize(c.Records, 8)
	want := counts{Rows: 30, FontsReady: true}
	for _, st := range s.Steps {
		want.Passed = append(want.Passed, st.Passed)
		want.On = append(want.On, st.On)
		want.Hinted = append(want.Hinted, st.Hinted)
		want.Solution = append(want.Solution, st.Solutions)
		want.Regressed = append(want.Regressed, st.Regressions)
		want.Lanes = append(want.Lanes, len(st.Times))
		want.Dots = append(want.Dots, len(st.Times))
		want.Hands = append(want.Hands, st.Hands)
		want.CaughtUp = append(want.CaughtUp, st.CaughtUp)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the charts in the browser:\n got %+v\nwant %+v", got, want)
	}

	for _, sz := range [][2]int64{{1280, 800}, {390, 844}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(sz[0], sz[1])); err != nil {
			t.Fatal(err)
		}
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		compareGolden(t, fmt.Sprintf("%dx%d.png", sz[0], sz[1]), shot)
	}
	stopConsole()
	<-consoleDone
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the browser reported:\n%s", strings.Join(problems, "\n"))
	}
}

// compareGolden compares a screenshot with docs/screens/report/name,
// tolerantly (pixelTolerance, maxDiffRatio); -update rewrites it.
func compareGolden(t *testing.T, name string, shot []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "docs", "screens", "report", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	want, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	ratio, err := diffRatio(want, got)
	if err != nil || ratio > maxDiffRatio {
		out := filepath.Join(t.TempDir(), name)
		_ = os.WriteFile(out, shot, 0o644)
		t.Errorf("%s: %v, %.2f%% of pixels differ (at most %.0f%%); the screenshot is %s, rerun with -update after a deliberate change",
			name, err, 100*ratio, 100*maxDiffRatio, out)
	}
}

// diffRatio is the share of pixels of a and b that differ by more than
// pixelTolerance in a channel; images of different sizes are an error.
func diffRatio(a, b image.Image) (float64, error) {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 1, fmt.Errorf("size %v, golden %v", b.Bounds().Size(), a.Bounds().Size())
	}
	ab, bb := a.Bounds(), b.Bounds()
	diff := 0
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			if far(r1, r2) || far(g1, g2) || far(b1, b2) {
				diff++
			}
		}
	}
	return float64(diff) / float64(ab.Dx()*ab.Dy()), nil
}

func far(a, b uint32) bool {
	d := int(a>>8) - int(b>>8)
	return d > pixelTolerance || d < -pixelTolerance
}

// The screenshot comparison fails when it should: a blank page against
// a drawn one, and images of different sizes.
func TestDiffRatio(t *testing.T) {
	white := image.NewRGBA(image.Rect(0, 0, 10, 10))
	draw.Draw(white, white.Bounds(), image.White, image.Point{}, draw.Src)
	drawn := image.NewRGBA(image.Rect(0, 0, 10, 10))
	draw.Draw(drawn, drawn.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(drawn, image.Rect(0, 0, 10, 3), image.Black, image.Point{}, draw.Src)
	if r, err := diffRatio(white, white); err != nil || r != 0 {
		t.Errorf("same image: %v %v", r, err)
	}
	if r, _ := diffRatio(white, drawn); r != 0.3 {
		t.Errorf("30%% drawn: ratio %v", r)
	}
	slight := image.NewRGBA(image.Rect(0, 0, 10, 10))
	draw.Draw(slight, slight.Bounds(), image.NewUniform(color.RGBA{240, 240, 240, 255}), image.Point{}, draw.Src)
	if r, _ := diffRatio(white, slight); r != 0 {
		t.Errorf("a shade within the tolerance counted: %v", r)
	}
	if _, err := diffRatio(white, image.NewRGBA(image.Rect(0, 0, 10, 11))); err == nil {
		t.Error("different sizes compared")
	}
}
