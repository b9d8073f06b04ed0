package content

import "testing"

func TestMistakeNamesTheWrongAnswerAMessageShows(t *testing.T) {
	lab, err := Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	const systemd = `SystemdCgroup = "true" 은 문자열입니다: 불리언 true 로 쓰세요`
	if got := lab.Mistake(1, "runc-systemd-cgroup", systemd); got != "SystemdCgroup 을 문자열로 씀" {
		t.Errorf("check ID: %q", got)
	}
	if got := lab.Mistake(1, "main-config.runc-systemd-cgroup", systemd); got != "SystemdCgroup 을 문자열로 씀" {
		t.Errorf("result ID: %q", got)
	}
	for _, c := range []struct {
		name    string
		n       int
		check   string
		message string
	}{
		{"a message missing a piece", 1, "runc-systemd-cgroup", "SystemdCgroup 이 없습니다"},
		{"another check", 1, "version", systemd},
		{"another step", 2, "runc-systemd-cgroup", systemd},
		{"no step", 0, "runc-systemd-cgroup", systemd},
		{"past the last step", len(lab.Steps) + 1, "runc-systemd-cgroup", systemd},
	} {
		if got := lab.Mistake(c.n, c.check, c.message); got != "" {
			t.Errorf("%s: named %q", c.name, got)
		}
	}
	// Two labels a message both matches: no name is a guess.
	c := *lab
	v := *lab.Verify
	v.Steps = append([]VerifyStep(nil), v.Steps...)
	v.Steps[0].Wrong = append(v.Steps[0].Wrong, Wrong{Case: "twin", Check: "runc-systemd-cgroup", Message: []string{"문자열"}, Label: "다른 이름"})
	c.Verify = &v
	if got := c.Mistake(1, "runc-systemd-cgroup", systemd); got != "" {
		t.Errorf("two labels matched, named %q", got)
	}
	var none *Lab
	if none.Mistake(1, "x", "y") != "" {
		t.Error("a nil lab named a mistake")
	}
}
