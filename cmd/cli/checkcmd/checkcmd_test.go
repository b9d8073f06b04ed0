package checkcmd

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/labmate/class/classlab"
)

// lockedBuilder is stderr as the notes' goroutine writes it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// check --watch --class words the class lab's notes on stderr, in Korean.
func TestSayClassLab(t *testing.T) {
	notes := make(chan classlab.LabNote, 2)
	var out lockedBuilder
	sayClassLab(notes, &out)
	notes <- classlab.LabNote{Version: "1.1.0"}
	notes <- classlab.LabNote{Refused: true, Why: "교실의 실습 묶음이 손상되었거나 바뀌었습니다"}
	close(notes)
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return strings.Count(out.String(), "\n") >= 2, nil
	})
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err != nil || len(got) != 2 || !strings.Contains(got[0], "새 판 1.1.0") || !strings.Contains(got[1], "손상") {
		t.Errorf("stderr: %q (%v)", got, err)
	}
}
