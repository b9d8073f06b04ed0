package scriptprobe

import (
	"encoding/json"
	"syscall"
	"testing"
)

// A failed exec is reported under the run's limits, where the helper may
// not allocate: the report is the parent's JSON, built in the buffer it
// is given.
func TestStartErrReportAllocatesNothing(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOEXEC, syscall.ENOENT, syscall.EACCES, syscall.E2BIG, syscall.ETXTBSY} {
		buf := make([]byte, 0, 256)
		var got initStatus
		if err := json.Unmarshal(appendStartErr(buf, errno), &got); err != nil {
			t.Fatalf("%v: %v", errno, err)
		}
		if want := (initStatus{StartErr: errno.Error(), Errno: int(errno)}); got != want {
			t.Errorf("%v: decoded %+v, want %+v", errno, got, want)
		}
		if n := testing.AllocsPerRun(10, func() { buf = appendStartErr(buf[:0], errno) }); n != 0 {
			t.Errorf("%v: %v allocations, want none", errno, n)
		}
	}
}
