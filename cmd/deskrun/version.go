package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// buildVersion is set at link time (-ldflags "-X main.buildVersion=v1.2.3");
// otherwise the module version or VCS revision of the build is printed.
var buildVersion = ""

func version(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "deskrun %s %s %s/%s\n", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

func versionString() string {
	if buildVersion != "" {
		return buildVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return "devel-" + rev + modified
}
