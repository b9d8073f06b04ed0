// Package applog is where labmate's own logging goes: slog and
// client-go's klog, to the --log file or nowhere, never the terminal
// (bubbletea owns it, and `check --json` output must stay parseable).
package applog

import (
	"flag"
	"io"
	"log/slog"
	"os"

	"k8s.io/klog/v2"
)

// SilenceKlog keeps client-go's logging off the terminal.
func SilenceKlog() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
}

// Open sends slog (at debug level) and klog to the file at path,
// appended to, and returns it; with path "" both go nowhere and the file
// is nil.
func Open(path string) (*os.File, error) {
	if path == "" {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})))
	klog.SetOutput(f)
	return f, nil
}
