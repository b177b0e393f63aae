// Command deskrun starts and serves disposable Linux desktops for
// computer-use agents.
//
//	deskrun serve [--addr 127.0.0.1:8080] [--provider auto|local|docker] [--token T]
//	deskrun sessions list|create|get|delete|screenshot|exec ...
//	deskrun tools [--dialect anthropic] [--json]
//	deskrun reap
//	deskrun version
package main

import (
	"fmt"
	"os"
	"sort"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(args []string) error
}

// commands holds the subcommands; each file adds its own.
var commands = map[string]command{}

var version = "dev"

func main() {
	commands["version"] = command{"print the version", func([]string) error { fmt.Println("deskrun", version); return nil }}
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "deskrun: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := cmd.run(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "deskrun:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: deskrun <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
