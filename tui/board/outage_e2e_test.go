package board_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
	"github.com/labhub/labmate/tui/board"
)

// The class cluster stops under a running board, and starts again: the
// board says it lost the cluster and since when, keeps the rows, and is
// current within seconds of the cluster's return, a learner's change
// made after it included. The cluster is the test's own (stopping the
// shared one would stop other tests), stopped as a reboot or a closed
// laptop would (kwokctl stop; sandbox.Up starts it again with the same
// keys, so the learners' tokens stay good).
//
//	LABMATE_E2E=1 go test ./tui/board -run TestBoardCurrentAfterTheClassClusterReturnsE2E -v
func TestBoardCurrentAfterTheClassClusterReturnsE2E(t *testing.T) {
	opts := sandboxtest.Own(t, "class-outage")
	opts.Nodes = nil // a class cluster: no lab nodes
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if err := sandbox.Up(ctx, opts); err != nil {
		t.Fatal(err)
	}
	conn, err := sandbox.Connect(opts)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	const ns = "workshop"
	learners, err := admin.Learners("2")
	if err != nil {
		t.Fatal(err)
	}
	res, err := admin.Init(ctx, admin.InitConfig{Conn: conn.Within(30 * time.Second), Namespace: ns, Learners: learners,
		Labs: []string{"gpu-incident"}, OutDir: t.TempDir(), TokenTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	lconn, err := kube.Open(learner.Kubeconfig(res.Files[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	l, err := learner.New(lconn, res.Files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	lcs, err := l.Requests().Typed()
	if err != nil {
		t.Fatal(err)
	}
	publish := func(passed int) {
		t.Helper()
		rep := engine.Report{Ready: true}
		for i := 1; i <= 8; i++ {
			st := checks.Waiting
			if i <= passed {
				st = checks.Passed
			} else if i == passed+1 {
				st = checks.Failed
			}
			rep.Steps = append(rep.Steps, engine.StepResult{Number: i, Status: st})
		}
		u := labrun.Next(nil, rep)
		pub := learner.NewPublisher(learner.PublisherConfig{Client: lcs, Namespace: ns, Interval: 100 * time.Millisecond,
			Identity: class.Identity{Learner: l.ID, Lab: "gpu-incident", Labmate: "test"}})
		pctx, stop := context.WithCancel(ctx)
		defer stop()
		go pub.Run(pctx)
		pub.Publish(learner.Update{Report: &u})
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
			st := pub.Status()
			return st.State == learner.Connected && !st.Pending, nil
		}); err != nil {
			t.Fatalf("learner-01's record of %d passed steps did not land: %+v", passed, pub.Status())
		}
	}

	// The board: the watch the command runs, into the model it draws.
	var (
		mu   sync.Mutex
		last board.Model
	)
	m := board.New(board.Options{Namespace: ns})
	tm, _ := m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m = tm.(board.Model)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	classes := admin.Watch(wctx, admin.WatchConfig{Client: cs, Namespace: ns})
	go func() {
		for c := range classes {
			tm, _ := m.Update(board.ClassMsg(c))
			m = tm.(board.Model)
			mu.Lock()
			last = m
			mu.Unlock()
		}
	}()
	// shows waits up to within for the board to show what ok looks for.
	shows := func(what string, within time.Duration, ok func(title string, rows []class.Record) bool) time.Duration {
		t.Helper()
		start := time.Now()
		var title string
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, within, true, func(context.Context) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			title, _, _ = strings.Cut(ansi.Strip(last.View()), "\n")
			return ok(title, last.Rows()), nil
		})
		if err != nil {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("the board never showed %s within %v:\n%s", what, within, ansi.Strip(last.View()))
		}
		return time.Since(start)
	}
	passedOf := func(rows []class.Record) int {
		for _, r := range rows {
			if r.Learner == l.ID {
				return r.Passed()
			}
		}
		return -1
	}
	publish(1)
	shows("learner-01 on step 2", time.Minute, func(title string, rows []class.Record) bool {
		return passedOf(rows) == 1 && !strings.Contains(title, "연결 끊김")
	})

	sandboxtest.Stop(t, opts)
	stopped := time.Now()
	took := shows("the lost cluster", time.Minute, func(title string, rows []class.Record) bool {
		return strings.Contains(title, "연결 끊김") && strings.Contains(title, "기준") && passedOf(rows) == 1
	})
	t.Logf("the board said the cluster was lost %v after kwokctl stop returned", took.Round(time.Millisecond))
	// Away long enough for client-go's own backoff to grow past what the
	// board may show old rows for.
	time.Sleep(max(0, 45*time.Second-time.Since(stopped)))

	if err := sandbox.Up(ctx, opts); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	publish(3)
	// Current again within seconds: well inside the reflector's own
	// backoff by then (client-go v0.34 tools/cache/reflector.go,
	// NewReflectorWithOptions: 800 ms doubling to 30 s, jitter 1.0, so up
	// to a minute), which the board waited out before Watch probed.
	back := shows("the class current again, with learner-01's change", 15*time.Second, func(title string, rows []class.Record) bool {
		return passedOf(rows) == 3 && !strings.Contains(title, "연결 끊김")
	})
	t.Logf("the board was current %v after sandbox up returned (%v after the learner's record landed)",
		time.Since(up).Round(time.Millisecond), back.Round(time.Millisecond))
	if c, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil || len(c.Items) == 0 {
		t.Fatalf("the class after the restart: %v", err)
	}
}
