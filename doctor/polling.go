package doctor

import (
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe/files"
)

// pollingProbe says how the file source will see the learner's saves: by
// file events, or by polling the lab's files because the root lives on a
// filesystem (NFS, SMB, 9p, FUSE) where inotify misses changes made by
// another machine or layer. It is the file source's own decision
// (files.PollReason), not a second guess.
func pollingProbe(o Lab) Finding {
	if fs := files.PollReason(o.Root.Path); fs != "" {
		return finding("polling", Warn, content.Msg("ops.doctor.polling.poll", "fs", fs))
	}
	return finding("polling", OK, content.Msg("ops.doctor.polling.events"))
}
