package metric

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCatalogComments keeps the comments of metricTable true: each
// family's comment ends with the file (or files) its rows' functions are
// declared in, every row's function is in one of them, and every file it
// names holds one.
func TestCatalogComments(t *testing.T) {
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	// Where each function is declared, and the package's Metric values.
	funcFile := map[string]string{}
	vars := map[string]ast.Expr{}
	for name, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					funcFile[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok && len(vs.Names) == len(vs.Values) {
						for i, n := range vs.Names {
							vars[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	table, ok := vars["metricTable"].(*ast.CompositeLit)
	if !ok {
		t.Fatal("metricTable is not a composite literal in catalog.go")
	}
	var comments []*ast.CommentGroup
	for _, cg := range files["catalog.go"].Comments {
		if cg.Pos() > table.Lbrace && cg.End() < table.Rbrace {
			comments = append(comments, cg)
		}
	}
	fileList := regexp.MustCompile(`\(([\w.]+\.go(?:, [\w.]+\.go)*)\)$`)
	used := map[*ast.CommentGroup]map[string]bool{}
	for _, el := range table.Elts {
		kv := el.(*ast.KeyValueExpr)
		name := strings.Trim(kv.Key.(*ast.BasicLit).Value, `"`)
		var cg *ast.CommentGroup
		for _, c := range comments {
			if c.End() < kv.Pos() {
				cg = c
			}
		}
		if cg == nil {
			t.Errorf("%s: no family comment above it", name)
			continue
		}
		m := fileList.FindStringSubmatch(strings.TrimSpace(cg.Text()))
		if m == nil {
			t.Errorf("%s: its family's comment %q does not end with its files, as (name.go)", name, strings.TrimSpace(cg.Text()))
			continue
		}
		fn := rowFunc(kv.Value, vars)
		where, ok := funcFile[fn]
		switch {
		case fn == "" || !ok:
			t.Errorf("%s: cannot find the function of its row (%q)", name, fn)
		case !slices.Contains(strings.Split(m[1], ", "), where):
			t.Errorf("%s: its function %s is in %s, its family's comment names %s", name, fn, where, m[1])
		default:
			if used[cg] == nil {
				used[cg] = map[string]bool{}
			}
			used[cg][where] = true
		}
	}
	for _, cg := range comments {
		if m := fileList.FindStringSubmatch(strings.TrimSpace(cg.Text())); m != nil {
			for _, f := range strings.Split(m[1], ", ") {
				if !used[cg][f] {
					t.Errorf("comment %q names %s, which holds none of its rows' functions", strings.TrimSpace(cg.Text()), filepath.Base(f))
				}
			}
		}
	}
}

// rowFunc names the function behind a row of metricTable: its Fn or
// SandboxFn (inside withDeadline), through a package variable, or the
// function that makes the row.
func rowFunc(e ast.Expr, vars map[string]ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		if v, ok := vars[e.Name]; ok {
			return rowFunc(v, vars)
		}
		return e.Name
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		if !ok {
			return ""
		}
		if id.Name == "withDeadline" && len(e.Args) == 1 {
			return rowFunc(e.Args[0], vars)
		}
		return id.Name
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "Fn" || k.Name == "SandboxFn") {
					return rowFunc(kv.Value, vars)
				}
			}
		}
	}
	return ""
}
