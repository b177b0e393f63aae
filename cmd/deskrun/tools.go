package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/deskrun/deskrun/api/tool"
	"github.com/deskrun/deskrun/runner/dialect"
)

const toolsSynopsis = `[--dialect D] [--json | --full] [NAME]

Without NAME, lists the tools of the dialect (level 1): a table, or with
--json the function declarations ({name, description, parameters}) an
agent's tool list takes, or with --full the whole definitions.
With NAME, prints that tool's whole definition (level 2) as Markdown, or
as JSON with --json.`

func tools(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tools", stderr, toolsSynopsis)
	dn := fs.String("dialect", "anthropic", "dialect: "+strings.Join(dialect.Names(), ", "))
	asJSON := fs.Bool("json", false, "print JSON: function declarations, or the definition of NAME")
	full := fs.Bool("full", false, "print the whole definitions (level 2) as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	defs, ok := dialect.Definitions(*dn)
	if !ok {
		return usagef("--dialect: unknown dialect %q (want one of %s)", *dn, strings.Join(dialect.Names(), ", "))
	}
	switch fs.NArg() {
	case 0:
	case 1:
		def, ok := dialect.Find(*dn, fs.Arg(0))
		if !ok {
			return usagef("dialect %s has no tool %q (deskrun tools --dialect %s lists them)", *dn, fs.Arg(0), *dn)
		}
		if *asJSON || *full {
			return writeJSON(stdout, def)
		}
		_, err := io.WriteString(stdout, def.Markdown())
		return err
	default:
		return usagef("at most one tool name, got %d arguments", fs.NArg())
	}
	switch {
	case *full:
		return writeJSON(stdout, defs)
	case *asJSON:
		fns := make([]tool.Function, 0, len(defs))
		for _, d := range defs {
			fns = append(fns, d.Function())
		}
		return writeJSON(stdout, fns)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, d := range defs {
		fmt.Fprintf(tw, "%s\t%s\n", d.Name, d.Description)
	}
	return tw.Flush()
}

// writeJSON writes v as indented JSON, without HTML escaping.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
