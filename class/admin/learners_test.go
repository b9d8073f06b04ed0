package admin

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

// --learners is a count or a roster file; what it cannot be is said in
// Korean.
func TestLearners(t *testing.T) {
	got, err := Learners("3")
	if want := []Entry{{ID: "learner-01"}, {ID: "learner-02"}, {ID: "learner-03"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("3: %v %v", got, err)
	}
	empty := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(empty, []byte("# nobody yet\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{
		"":     content.Msg("class.cli.learners_missing"),
		"0":    content.Msg("class.cli.learners_range", "n", 0),
		"1001": content.Msg("class.cli.learners_range", "n", 1001),
		empty:  content.Msg("class.cli.learners_empty", "path", empty),
	} {
		if got, err := Learners(spec); err == nil || err.Error() != want {
			t.Errorf("%q: %v %v, want %q", spec, got, err, want)
		}
	}
}

// A roster as an instructor has one: a UTF-8 byte order mark and CRLF
// from Windows, Korean names, names in any case, slots with names.
func TestReadRosterReadsWhatInstructorsHave(t *testing.T) {
	in := "\ufeff# 1조\r\n김지민\r\n이서준\r\n\r\nAlice\r\nlearner-07,박하은\r\nBOB\t최도윤\r\n  정수아  \r\n"
	got, err := ReadRoster(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Line: 2, Name: "김지민"},
		{Line: 3, Name: "이서준"},
		{Line: 5, ID: "alice", Name: "Alice"},
		{Line: 6, ID: "learner-07", Name: "박하은"},
		{Line: 7, ID: "bob", Name: "최도윤"},
		{Line: 8, Name: "정수아"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// Every bad line of a roster is said at once, with its line and why, in
// Korean: a slot a Kubernetes name cannot be, a name too long or holding
// a control character, a slot or a name twice.
func TestReadRosterListsEveryBadLine(t *testing.T) {
	in := strings.Join([]string{
		"ana",                      // 1 fine
		"a_b",                      // 2 bad slot
		"-ana",                     // 3 bad slot
		strings.Repeat("가", 41),    // 4 name too long
		"ana",                      // 5 slot twice
		"김지민",                      // 6 fine
		"learner-09,김지민",           // 7 name twice
		"x\x1b[2Jy 님",              // 8 control character
		strings.Repeat("a", 41),    // 9 slot too long
		"learner-10," + "가\u202e나", // 10 a bidi override in the name
	}, "\n")
	_, err := ReadRoster(strings.NewReader(in))
	var bad RosterError
	if !errors.As(err, &bad) {
		t.Fatalf("err %v, want RosterError", err)
	}
	type line struct {
		Line  int
		Why   Problem
		First int
	}
	var got []line
	for _, l := range bad.Lines {
		got = append(got, line{l.Line, l.Why, l.First})
	}
	want := []line{{2, BadID, 0}, {3, BadID, 0}, {4, BadName, 0}, {5, DupID, 1}, {7, DupName, 6}, {8, BadName, 0}, {9, BadID, 0}, {10, BadName, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bad lines\n got %+v\nwant %+v", got, want)
	}
	bad.Path = "roster.txt"
	msg := bad.Error()
	for _, s := range []string{"roster.txt", "8개", "2번째 줄 a_b", "5번째 줄 ana: 1번째 줄과", "7번째 줄", "learner-07,김지민"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
	if strings.ContainsRune(msg, 0x1b) {
		t.Errorf("the roster's escape reached the message:\n%q", msg)
	}
}

// A name alone gets the slot the class gave it before, else the first
// free learner-NN: never a slot the class had for someone else, whose
// kubeconfig is out there, and never one another line names.
func TestAssignKeepsSlotsAcrossRuns(t *testing.T) {
	before := map[string]string{"learner-01": "김지민", "learner-02": "이서준", "learner-03": "박하은"}
	had := []string{"learner-01", "learner-02", "learner-03", "learner-04"}
	entries := []Entry{{Name: "최도윤"}, {Name: "이서준"}, {ID: "learner-05", Name: "정수아"}, {Name: "김지민"}, {Name: "강민준"}}
	got := assign(entries, before, had)
	want := []Learner{{"learner-06", "최도윤"}, {"learner-02", "이서준"}, {"learner-05", "정수아"}, {"learner-01", "김지민"}, {"learner-07", "강민준"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
