package task

import (
	"context"
	"fmt"
	"path"
	"path/filepath"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/runner/task/internal/office"
)

// OSWorld's content_from_vm_file: a file fetched from the sandbox and a
// part of its content. OSWorld knows one kind, the last row of the first
// sheet of an xlsx file as pandas reads it (read_excel, then
// iloc[-1].astype(str)): a list of strings, one per column.
func checkContentGetter(f fields) error {
	p, err := f.str("path", true)
	if err == nil && p == "" {
		err = fmt.Errorf("%s: must not be empty", f.name("path"))
	}
	if err != nil {
		return err
	}
	if t, err := f.str("file_type", true); err != nil {
		return err
	} else if t != "xlsx" {
		return fmt.Errorf("%s: %q is not supported (OSWorld reads xlsx only)", f.name("file_type"), t)
	}
	if c, err := f.str("file_content", true); err != nil {
		return err
	} else if c != "last_row" {
		return fmt.Errorf("%s: %q is not supported (OSWorld reads last_row only)", f.name("file_content"), c)
	}
	return nil
}

// contentFromVMFile implements OSWorld's content_from_vm_file
// (desktop_env/evaluators/getters/file.py).
func (r *run) contentFromVMFile(ctx context.Context, p map[string]any) (any, error) {
	src, _ := p["path"].(string)
	got, err := r.vmFile(ctx, map[string]any{"path": src, "dest": path.Base(src)})
	if err != nil {
		return nil, err
	}
	local, ok := got.(string)
	if !ok {
		return nil, nil // no such file: the metric scores 0
	}
	row, err := xlsxLastRow(local)
	if err != nil {
		return nil, errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("%s: %v", filepath.Base(local), err))
	}
	return row, nil
}

// xlsxLastRow is pandas' read_excel(p).iloc[-1].astype(str): the last
// data row of the first sheet, each value as str() gives it for its
// column's type (an integer column "3", a float column "3.0" and "nan"
// for a blank, dates "2024-05-01 00:00:00", booleans "True").
func xlsxLastRow(p string) ([]any, error) {
	b, err := office.OpenXLSX(p)
	if err != nil {
		return nil, err
	}
	if len(b.Names) == 0 {
		return nil, fmt.Errorf("no sheet")
	}
	s, err := b.Sheet(b.Names[0])
	if err != nil {
		return nil, err
	}
	fr, err := office.LoadFrame(b, s, -1, false)
	if err != nil {
		return nil, err
	}
	if fr.Columns() == 0 || fr.Rows() == 0 {
		return nil, fmt.Errorf("the sheet has no data row (iloc[-1] of an empty frame)")
	}
	out := make([]any, fr.Columns())
	for c := range out {
		out[c] = fr.Str(c, fr.Rows()-1)
	}
	return out, nil
}
