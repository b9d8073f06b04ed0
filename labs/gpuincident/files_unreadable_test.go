package gpuincident

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/labhub/labmate/checks"
)

// What stands where merge.txt should be, read the way the file source
// reads it: the reason it cannot be read is said in Korean, and a link to
// nothing is not reported as a missing file.
func TestUnreadableFileReasonsAreKorean(t *testing.T) {
	cases := []struct {
		name  string
		make  func(t *testing.T, full string)
		words []string
		not   []string
	}{
		{"a FIFO", func(t *testing.T, full string) {
			mustNil(t, syscall.Mkfifo(full, 0o644))
		}, []string{"읽을 수 없습니다", "일반 파일이 아닙니다 (FIFO, 장치 등)", "ls -l"}, []string{"not a regular file"}},
		{"a link to nothing", func(t *testing.T, full string) {
			mustNil(t, os.Symlink("merge-old.txt", full))
		}, []string{"가리키는 대상이 없는 심볼릭 링크"}, []string{"dangling", "파일이 없습니다"}},
		{"a symlink loop", func(t *testing.T, full string) {
			mustNil(t, os.Symlink("loop", filepath.Join(filepath.Dir(full), "loop")))
			mustNil(t, os.Symlink("loop", full))
		}, []string{"심볼릭 링크가 고리"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := labRoot(t, map[string]string{mergePath: ""})
			full := filepath.Join(root, mergePath)
			mustNil(t, os.MkdirAll(filepath.Dir(full), 0o755))
			tc.make(t, full)
			ev := evalStep(t, stepMergeVerdict, root, observeRoot(t, root))
			r := result(t, ev, "merge-verdict.file")
			if r.Status != checks.Failed {
				t.Errorf("%s: %s", r.ID, r.Status)
			}
			for _, w := range tc.words {
				if !strings.Contains(r.Message, w) {
					t.Errorf("message lacks %q: %s", w, r.Message)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(r.Message+r.Observed, w) {
					t.Errorf("message says %q: %s / %s", w, r.Message, r.Observed)
				}
			}
		})
	}
}
