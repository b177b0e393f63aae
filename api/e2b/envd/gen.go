//go:build ignore

// gen.go generates the Go messages and the Connect code of the envd
// services from process/process.proto and filesystem/filesystem.proto,
// with protoc (Debian's protobuf-compiler, see scripts/install-deps.sh)
// and the plugins pinned as tools in go.mod (protoc-gen-go,
// protoc-gen-connect-go), built by `go tool`. Run by `go generate`.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	goPlugin, err := tool("protoc-gen-go")
	if err != nil {
		return err
	}
	connectPlugin, err := tool("protoc-gen-connect-go")
	if err != nil {
		return err
	}
	cmd := exec.Command("protoc",
		"--plugin=protoc-gen-go="+goPlugin,
		"--plugin=protoc-gen-connect-go="+connectPlugin,
		"--go_out=.", "--go_opt=paths=source_relative",
		"--connect-go_out=.", "--connect-go_opt=paths=source_relative",
		"process/process.proto", "filesystem/filesystem.proto")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("run protoc: %w", err)
	}
	return nil
}

// tool builds a tool of go.mod and returns its path.
func tool(name string) (string, error) {
	out, err := exec.Command("go", "tool", "-n", name).Output()
	if err != nil {
		return "", fmt.Errorf("build %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
