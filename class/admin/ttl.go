package admin

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labhub/labmate/content"
)

// Token lifetimes. The API server issues no bound token for less than
// MinTokenTTL (TokenRequest's validation: "may not specify a duration
// less than 10 minutes"), and may cap a long one
// (--service-account-max-token-expiration): init says when the tokens it
// got end. A workshop of two days needs tokens that outlive the night,
// and `class end` ends them all at once when it is over, so the default
// is a week.
const (
	MinTokenTTL     = 10 * time.Minute
	DefaultTokenTTL = 7 * 24 * time.Hour
)

// days is a lifetime in days, with hours or minutes after it ("2d",
// "1d12h"): a Go duration has no unit longer than an hour.
var days = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)d(.*)$`) })

// ParseTTL reads --token-ttl: a Go duration ("36h", "90m"), or days
// ("2d", "1d12h"). Its errors are Korean, with an example.
func ParseTTL(s string) (time.Duration, error) {
	bad := func() (time.Duration, error) {
		return 0, errors.New(content.Msg("class.cli.token_ttl_bad", "ttl", s))
	}
	s = strings.TrimSpace(s)
	var d time.Duration
	rest := s
	if m := days().FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 3650 {
			return bad()
		}
		d, rest = time.Duration(n)*24*time.Hour, m[2]
	}
	if rest != "" {
		more, err := time.ParseDuration(rest)
		if err != nil || more < 0 {
			return bad()
		}
		d += more
	}
	if d < MinTokenTTL {
		return 0, errors.New(content.Msg("class.cli.token_ttl_short", "ttl", s, "min", MinTokenTTL))
	}
	return d, nil
}
