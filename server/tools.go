package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/tool"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/labstack/echo/v4"
)

func unknownDialect(name string) error {
	return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("dialect: unknown dialect %q (want one of %s)", name, strings.Join(dialect.Names(), ", ")))
}

func (s *server) tools(c echo.Context) error {
	dn := c.QueryParam("dialect")
	if dn == "" {
		dn = s.cfg.Dialect
	}
	defs, ok := dialect.Definitions(dn)
	if !ok {
		return unknownDialect(dn)
	}
	out := api.ToolList{Dialect: dn, Tools: make([]api.ToolSummary, 0, len(defs))}
	for _, d := range defs {
		out.Tools = append(out.Tools, api.ToolSummary{Summary: d.Summary(), InputSchema: d.InputSchema})
	}
	return c.JSON(http.StatusOK, out)
}

// toolInfo answers level 2: the whole definition of one tool, as JSON or,
// with format=markdown, as the text a model reads. Without a dialect the
// server's default dialect is searched first, then every dialect.
func (s *server) toolInfo(c echo.Context) error {
	name := c.Param("name")
	format := c.QueryParam("format")
	if format != "" && format != "json" && format != "markdown" {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("format: unknown format %q (want json or markdown)", format))
	}
	var def tool.Definition
	var ok bool
	if dn := c.QueryParam("dialect"); dn != "" {
		if _, known := dialect.ByName(dn); !known {
			return unknownDialect(dn)
		}
		if def, ok = dialect.Find(dn, name); !ok {
			return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("name: dialect %s has no tool %q", dn, name))
		}
	} else if def, ok = dialect.Find(s.cfg.Dialect, name); !ok {
		if def, ok = dialect.Lookup(name); !ok {
			return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("name: no dialect has a tool %q", name))
		}
	}
	if format == "markdown" {
		return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(def.Markdown()))
	}
	return c.JSON(http.StatusOK, def)
}

// callTool runs one tool call. Arguments the dialect refuses and actions
// the desktop refused are answered 200 with is_error set, as the model
// must read them; HTTP errors are for the request itself (unknown
// session, dialect or tool, a body that is not a JSON object) and for the
// infrastructure.
func (s *server) callTool(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	dn := c.QueryParam("dialect")
	if dn == "" {
		dn = sess.Info().Dialect
	}
	if _, ok := dialect.ByName(dn); !ok {
		return unknownDialect(dn)
	}
	name := c.Param("name")
	if _, ok := dialect.Find(dn, name); !ok {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("name: dialect %s has no tool %q", dn, name))
	}
	body, err := httpserve.ReadBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if err := checkObject(body); err != nil {
		return err
	}
	ctx := dialect.WithPortExposer(c.Request().Context(), s.portExposer(c, sess))
	res, err := sess.CallTool(ctx, dn, name, body)
	if err != nil {
		return err
	}
	if res.Content == nil {
		res.Content = []dialect.Part{}
	}
	return c.JSON(http.StatusOK, res)
}

// checkObject checks that body is one JSON object, the arguments of a
// tool call.
func checkObject(body []byte) error {
	if body[0] != '{' {
		return errdefs.ErrInvalidArgument.WithMessage("body: want a JSON object of the tool's arguments")
	}
	var args map[string]json.RawMessage
	return api.DecodeJSON(bytes.NewReader(body), &args)
}
