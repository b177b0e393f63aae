package e2b

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/labstack/echo/v4"
)

// Bounds of the control plane.
const (
	// defaultTimeout is a sandbox's time to live when a create names
	// none (E2B's default).
	defaultTimeout = 15
	// maxBody bounds a control-plane request body.
	maxBody = 1 << 20
	// deleteTimeout bounds the stop of a sandbox a DELETE started; the
	// stop goes on when the client hangs up.
	deleteTimeout = 60 * time.Second
	// maxLimit is the largest page of a list (E2B's).
	maxLimit = 100
)

// clientID is the deprecated clientID of E2B's sandbox objects, which the
// SDKs still require.
const clientID = "deskrun"

// unsupported are E2B's calls deskrun does not serve yet: each answers
// 501 naming what is missing, once the sandbox is known to exist (an
// unknown one answers 404).
var unsupported = []struct {
	method, path, what string
	sandbox            bool // the path names a sandbox (:id)
}{
	{http.MethodPut, "/sandboxes/:id/network", "changing a sandbox's network rules", true},
	{http.MethodPost, "/sandboxes/:id/refreshes", "refreshes", true},
	{http.MethodGet, "/sandboxes/:id/logs", "a sandbox's logs", true},
	{http.MethodGet, "/v2/sandboxes/:id/logs", "a sandbox's logs", true},
}

// notSupported is the error of what deskrun does not do yet.
func notSupported(what string) error {
	return errdefs.ErrNotImplemented.WithMessage(what + " is not supported by deskrun yet")
}

func (f *Front) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = f.handleError
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Path() != Prefix+"/health" && !f.authorized(c.Request()) {
				return echo.NewHTTPError(http.StatusUnauthorized, "X-API-KEY: missing or not this server's key")
			}
			return next(c)
		}
	})
	g := e.Group(Prefix)
	g.GET("/health", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	g.POST("/sandboxes", f.create)
	g.GET("/sandboxes", f.listV1)
	g.GET("/v2/sandboxes", f.listV2)
	g.GET("/sandboxes/:id", f.get)
	g.DELETE("/sandboxes/:id", f.kill)
	g.POST("/sandboxes/:id/timeout", f.setTimeout)
	g.POST("/sandboxes/:id/connect", f.connect)
	g.POST("/sandboxes/:id/resume", f.resume)
	g.POST("/sandboxes/:id/pause", f.pause)
	g.POST("/sandboxes/:id/fork", f.fork)
	g.POST("/sandboxes/:id/snapshots", f.createSnapshot)
	g.GET("/snapshots", f.listSnapshots)
	g.DELETE("/templates/:id", f.deleteTemplate)
	g.GET("/sandboxes/metrics", f.metricsOf)
	g.GET("/sandboxes/:id/metrics", f.metrics)
	for _, u := range unsupported {
		g.Add(u.method, u.path, func(c echo.Context) error {
			if u.sandbox {
				if _, err := f.session(c); err != nil {
					return err
				}
			}
			return notSupported(u.what)
		})
	}
	e.RouteNotFound("/*", func(c echo.Context) error {
		return notFound(fmt.Sprintf("no route %s %s in deskrun's E2B API", c.Request().Method, c.Request().URL.Path))
	})
	return e
}

// session returns the session the :id of a route names; an unknown one
// is a 404 naming it.
func (f *Front) session(c echo.Context) (*runner.Session, error) {
	id := c.Param("id")
	s, err := f.m.Get(id)
	if err != nil {
		return nil, notFound(fmt.Sprintf("sandbox %q not found", id))
	}
	return s, nil
}

// newSandbox is the body of POST /sandboxes (E2B's NewSandbox). Fields
// deskrun has no use for are ignored; those it cannot honour are refused.
type newSandbox struct {
	TemplateID          string            `json:"templateID"`
	Timeout             *int              `json:"timeout"`
	AutoPause           bool              `json:"autoPause"`
	AutoResume          *autoResume       `json:"autoResume"`
	Secure              *bool             `json:"secure"`
	AllowInternetAccess *bool             `json:"allow_internet_access"`
	Network             *networkConfig    `json:"network"`
	Metadata            map[string]string `json:"metadata"`
	EnvVars             map[string]string `json:"envVars"`
	VolumeMounts        []json.RawMessage `json:"volumeMounts"`
}

type autoResume struct {
	Enabled bool `json:"enabled"`
}

// networkConfig is E2B's SandboxNetworkConfig. deskrun gives a sandbox
// the whole network or none of it, so egress rules are taken where they
// come down to one of those and refused where they would need a filter.
type networkConfig struct {
	AllowPublicTraffic *bool           `json:"allowPublicTraffic"`
	AllowOut           []string        `json:"allowOut"`
	DenyOut            []string        `json:"denyOut"`
	EgressProxy        json.RawMessage `json:"egressProxy"`
	MaskRequestHost    *string         `json:"maskRequestHost"`
	Rules              json.RawMessage `json:"rules"`
}

// egress decides a sandbox's network from allow_internet_access and the
// egress rules: E2B's default is the internet, deskrun's is none, so an
// absent allow_internet_access keeps deskrun's. A denyOut of 0.0.0.0/0
// is allow_internet_access false, as in E2B; an allowOut under it, or a
// denyOut of less than everything over a networked sandbox, would need
// a filter per destination, which no provider of deskrun has: 501
// naming the field, not a sandbox with more network than was asked.
func egress(internet *bool, n *networkConfig) (bool, error) {
	on := internet != nil && *internet
	if n == nil {
		return on, nil
	}
	switch {
	case len(n.EgressProxy) > 0 && string(n.EgressProxy) != "null":
		return false, notSupported("network.egressProxy: an egress proxy")
	case n.MaskRequestHost != nil:
		return false, notSupported("network.maskRequestHost: masking the Host of a sandbox's requests")
	case len(n.Rules) > 0 && string(n.Rules) != "null" && string(n.Rules) != "{}":
		return false, notSupported("network.rules: rewriting a sandbox's requests")
	}
	denyAll := false
	for i, d := range n.DenyOut {
		p, err := cidr(d)
		if err != nil {
			return false, invalid(fmt.Sprintf("network.denyOut[%d]: %q is not an IP address or CIDR block (deny rules take no domain names)", i, d))
		}
		if p.Bits() == 0 && p.Addr().Is4() {
			denyAll = true
		}
	}
	for i, a := range n.AllowOut {
		if _, err := cidr(a); err != nil && !domainName(a) {
			return false, invalid(fmt.Sprintf("network.allowOut[%d]: %q is not an IP address, CIDR block or domain name", i, a))
		}
	}
	if denyAll {
		on = false
	}
	switch {
	case len(n.AllowOut) > 0 && !on:
		return false, notSupported("network.allowOut: egress to chosen destinations only (a deskrun sandbox has all of the network or none: allow_internet_access)")
	case len(n.DenyOut) > 0 && on:
		return false, notSupported("network.denyOut: denying some destinations (a deskrun sandbox has all of the network or none: deny 0.0.0.0/0, or allow_internet_access false)")
	}
	return on, nil
}

// cidr reads a CIDR block or a bare address (a /32 or /128).
func cidr(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// domainName holds for a host name, or one behind a leading "*.".
func domainName(s string) bool {
	s = strings.TrimPrefix(s, "*.")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// timeoutBody is the body of .../timeout, .../connect and .../resume.
type timeoutBody struct {
	Timeout *int `json:"timeout"`
}

// sandboxJSON is E2B's sandbox object: the fields of Sandbox (create,
// connect), SandboxDetail (get) and ListedSandbox (list) together, the
// tokens left out of lists.
type sandboxJSON struct {
	TemplateID          string            `json:"templateID"`
	SandboxID           string            `json:"sandboxID"`
	Alias               string            `json:"alias,omitempty"`
	ClientID            string            `json:"clientID"`
	EnvdVersion         string            `json:"envdVersion"`
	EnvdAccessToken     string            `json:"envdAccessToken,omitempty"`
	TrafficAccessToken  *string           `json:"trafficAccessToken,omitempty"`
	Domain              *string           `json:"domain,omitempty"`
	StartedAt           time.Time         `json:"startedAt"`
	EndAt               time.Time         `json:"endAt"`
	CPUCount            int               `json:"cpuCount"`
	MemoryMB            int               `json:"memoryMB"`
	DiskSizeMB          int               `json:"diskSizeMB"`
	Metadata            map[string]string `json:"metadata"`
	State               string            `json:"state"`
	AllowInternetAccess *bool             `json:"allowInternetAccess,omitempty"`
	Lifecycle           *lifecycle        `json:"lifecycle,omitempty"`
	VolumeMounts        []struct{}        `json:"volumeMounts"`
}

type lifecycle struct {
	AutoResume bool   `json:"autoResume"`
	OnTimeout  string `json:"onTimeout"`
}

// noDeadline is the endAt of a session without a deadline (one created
// through deskrun's own API without ttl_s): E2B's objects require one.
var noDeadline = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// view is how a sandbox is shown.
type view int

const (
	viewListed  view = iota // no tokens
	viewDetail              // envd token, domain, lifecycle
	viewSandbox             // both tokens, domain
)

func (f *Front) sandboxJSON(sess *runner.Session, b *box, v view) sandboxJSON {
	info := sess.Info()
	out := sandboxJSON{
		TemplateID: b.template, SandboxID: info.ID, Alias: b.template, ClientID: clientID,
		EnvdVersion: envdVersion, StartedAt: info.CreatedAt, EndAt: info.ExpiresAt,
		Metadata: info.Labels, State: "running", VolumeMounts: []struct{}{},
		CPUCount: b.cpuCount, MemoryMB: b.memoryMB,
	}
	if info.State == api.SessionPaused {
		out.State = "paused"
	}
	if out.EndAt.IsZero() {
		out.EndAt = noDeadline
	}
	if out.Metadata == nil {
		out.Metadata = map[string]string{}
	}
	if v == viewListed {
		return out
	}
	domain := f.cfg.Domain
	out.Domain = &domain
	out.EnvdAccessToken = b.envdToken
	if v == viewDetail {
		out.AllowInternetAccess = b.internet
		out.Lifecycle = &lifecycle{OnTimeout: "kill"}
		return out
	}
	if b.trafficToken != "" {
		t := b.trafficToken
		out.TrafficAccessToken = &t
	}
	return out
}

// decode reads a JSON body into v: unknown fields are ignored, a field
// of the wrong type is a 400 naming it. An empty body leaves v as it is
// when optional.
func decode(c echo.Context, v any, optional bool) error {
	b, err := io.ReadAll(io.LimitReader(c.Request().Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if len(b) > maxBody {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("body: over %d bytes", maxBody))
	}
	if len(bytes.TrimSpace(b)) == 0 {
		if optional {
			return nil
		}
		return invalid("body: required, a JSON object")
	}
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return invalid(fmt.Sprintf("%s: want %s, got a JSON %s", te.Field, te.Type, te.Value))
		}
		return invalid(fmt.Sprintf("body: not a JSON object: %v", err))
	}
	return nil
}

// checkTimeout checks a timeout in seconds against min..api.MaxTTLS.
func checkTimeout(t, min int) error {
	if t < min || t > api.MaxTTLS {
		return invalid(fmt.Sprintf("timeout: %d seconds out of range %d..%d", t, min, api.MaxTTLS))
	}
	return nil
}

// request turns a create body into deskrun's session request, naming
// E2B's field at fault.
func (f *Front) request(ns newSandbox) (api.CreateSessionRequest, error) {
	var req api.CreateSessionRequest
	if ns.TemplateID == "" {
		return req, invalid("templateID: required, the template to start (one of " + strings.Join(f.templateNames(), ", ") + ")")
	}
	image, ok := f.cfg.Templates[ns.TemplateID]
	if !ok {
		if !f.cfg.AnyImage {
			return req, invalid(fmt.Sprintf("templateID: unknown template %q (this server has %s)", ns.TemplateID, strings.Join(f.templateNames(), ", ")))
		}
		image = ns.TemplateID
	}
	timeout := defaultTimeout
	if ns.Timeout != nil {
		timeout = *ns.Timeout
	}
	if err := checkTimeout(timeout, 1); err != nil {
		return req, err
	}
	if ns.AutoPause {
		return req, notSupported("autoPause: pausing a sandbox at its timeout")
	}
	if ns.AutoResume != nil && ns.AutoResume.Enabled {
		return req, notSupported("autoResume: resuming a paused sandbox")
	}
	if len(ns.VolumeMounts) > 0 {
		return req, notSupported("volumeMounts: volumes")
	}
	for k, v := range ns.EnvVars {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return req, invalid(fmt.Sprintf("envVars: bad variable name %q", k))
		}
		if strings.IndexByte(v, 0) >= 0 {
			return req, invalid(fmt.Sprintf("envVars.%s: holds a NUL byte", k))
		}
	}
	for k := range ns.Metadata {
		if k == "" || k == sandbox.LabelSession {
			return req, invalid(fmt.Sprintf("metadata: reserved or empty key %q", k))
		}
	}
	req.Image, req.Env, req.Labels, req.TTLS = image, ns.EnvVars, ns.Metadata, timeout
	req.Screen = templateScreens[ns.TemplateID]
	on, err := egress(ns.AllowInternetAccess, ns.Network)
	if err != nil {
		return req, err
	}
	req.Network = on
	return req, nil
}

// templateScreens are the screens of templates whose sandboxes E2B
// starts at a size of its own: e2b_desktop's default resolution is
// 1024x768, which agents written against it expect (its own Xvfb at
// another resolution does not resize agentd's screen: docs/e2b.md).
// Other templates get the server's default.
var templateScreens = map[string]api.Screen{"desktop": {Width: 1024, Height: 768}}

func (f *Front) templateNames() []string {
	names := make([]string, 0, len(f.cfg.Templates))
	for n := range f.cfg.Templates {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// create answers POST /sandboxes: 201 with the sandbox once its agentd
// (and so its envd) answers.
func (f *Front) create(c echo.Context) error {
	var ns newSandbox
	if err := decode(c, &ns, false); err != nil {
		return err
	}
	if snap := f.snapshotOf(ns.TemplateID); snap != nil {
		return f.createFromSnapshot(c, snap, ns)
	}
	req, err := f.request(ns)
	if err != nil {
		return err
	}
	sess, err := f.m.Create(c.Request().Context(), req)
	if err != nil {
		if errdefs.IsNotFound(err) { // the provider has no such image
			return invalid(fmt.Sprintf("templateID: %v", err))
		}
		return err
	}
	return f.created(c, sess, ns.TemplateID, ns)
}

// created answers a create with sess, a sandbox of template made as ns
// asked: its envd token, and a traffic token when ns closes its ports to
// the public.
func (f *Front) created(c echo.Context, sess *runner.Session, template string, ns newSandbox) error {
	b := &box{template: template, envdToken: newToken(), internet: ns.AllowInternetAccess}
	if on, err := egress(ns.AllowInternetAccess, ns.Network); err == nil && ns.Network != nil {
		b.internet = &on // a denyOut of 0.0.0.0/0 shown as what it means
	}
	if m, err := f.readMetrics(c.Request().Context(), sess); err == nil {
		b.cpuCount, b.memoryMB = m.CPUCount, int(m.MemTotalMiB)
	}
	if ns.Network != nil && ns.Network.AllowPublicTraffic != nil && !*ns.Network.AllowPublicTraffic {
		b.trafficToken = newToken()
	}
	f.adopt(sess, b)
	return c.JSON(http.StatusCreated, f.sandboxJSON(sess, b, viewSandbox))
}

func (f *Front) get(c echo.Context) error {
	sess, err := f.session(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, f.sandboxJSON(sess, f.boxOf(sess), viewDetail))
}

func (f *Front) kill(c echo.Context) error {
	id := c.Param("id")
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), deleteTimeout)
	defer cancel()
	if err := f.m.Delete(ctx, id); err != nil {
		if errdefs.IsNotFound(err) {
			return notFound(fmt.Sprintf("sandbox %q not found", id))
		}
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// setTimeout answers POST /sandboxes/{id}/timeout: the sandbox now ends
// timeout seconds from the call (0: at once).
func (f *Front) setTimeout(c echo.Context) error {
	sess, err := f.session(c)
	if err != nil {
		return err
	}
	var body timeoutBody
	if err := decode(c, &body, false); err != nil {
		return err
	}
	if body.Timeout == nil {
		return invalid("timeout: required, seconds from now")
	}
	if err := checkTimeout(*body.Timeout, 0); err != nil {
		return err
	}
	sess.SetDeadline(time.Now().Add(time.Duration(*body.Timeout) * time.Second))
	return c.NoContent(http.StatusNoContent)
}

// connect answers POST /sandboxes/{id}/connect: the sandbox with its
// tokens, 200 when it was running (its deadline only moves later), 201
// when it was paused and is resumed (its deadline timeout from now).
func (f *Front) connect(c echo.Context) error {
	return f.keepAlive(c, false, false)
}

// resume answers the older POST /sandboxes/{id}/resume: 201 with a
// paused sandbox resumed, 409 for one that is running.
func (f *Front) resume(c echo.Context) error {
	return f.keepAlive(c, true, true)
}

func (f *Front) keepAlive(c echo.Context, optional, pausedOnly bool) error {
	sess, err := f.session(c)
	if err != nil {
		return err
	}
	var body timeoutBody
	if err := decode(c, &body, optional); err != nil {
		return err
	}
	if pausedOnly && sess.Info().State != api.SessionPaused {
		return errdefs.ErrConflict.WithMessage(fmt.Sprintf("sandbox %q is running, not paused", sess.ID()))
	}
	timeout := defaultTimeout
	if body.Timeout != nil {
		timeout = *body.Timeout
	} else if !optional {
		return invalid("timeout: required, seconds from now")
	}
	if err := checkTimeout(timeout, 0); err != nil {
		return err
	}
	resumed, err := f.resumeIfPaused(c.Request().Context(), sess)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if resumed {
		status = http.StatusCreated
		sess.SetDeadline(time.Now().Add(time.Duration(timeout) * time.Second))
	} else {
		sess.ExtendDeadline(time.Now().Add(time.Duration(timeout) * time.Second))
	}
	return c.JSON(status, f.sandboxJSON(sess, f.boxOf(sess), viewSandbox))
}

// listV1 answers the older GET /sandboxes: every running sandbox the
// metadata filter matches, no pages.
func (f *Front) listV1(c echo.Context) error {
	filter, err := parseMetadata(c.QueryParam("metadata"))
	if err != nil {
		return err
	}
	out := []sandboxJSON{}
	for _, s := range f.m.List() {
		if info := s.Info(); matches(info.Labels, filter) && info.State != api.SessionPaused {
			out = append(out, f.sandboxJSON(s, f.boxOf(s), viewListed))
		}
	}
	return c.JSON(http.StatusOK, out)
}

// listV2 answers GET /v2/sandboxes: the sandboxes in the states asked
// (deskrun's are all running), filtered by metadata, template and start
// time, newest first unless order=asc, a page of limit at a time with
// X-Next-Token naming the next page and X-Total-Running counting all
// that match.
func (f *Front) listV2(c echo.Context) error {
	q := c.QueryParams()
	filter, err := parseMetadata(q.Get("metadata"))
	if err != nil {
		return err
	}
	running, paused := true, false
	if states := q["state"]; len(states) > 0 {
		running = false
		for _, v := range states {
			for st := range strings.SplitSeq(v, ",") {
				switch st {
				case "running":
					running = true
				case "paused":
					paused = true
				default:
					return invalid(fmt.Sprintf("state: unknown state %q (want running or paused)", st))
				}
			}
		}
	}
	limit := maxLimit
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > maxLimit {
			return invalid(fmt.Sprintf("limit: want an integer 1..%d, got %q", maxLimit, v))
		}
	}
	order := cmp.Or(q.Get("order"), "desc")
	if order != "asc" && order != "desc" {
		return invalid(fmt.Sprintf("order: want asc or desc, got %q", order))
	}
	var after time.Time
	if v := q.Get("startedAfter"); v != "" {
		if after, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return invalid(fmt.Sprintf("startedAfter: want an RFC 3339 time, got %q", v))
		}
	}
	var cursor *pageKey
	if v := q.Get("nextToken"); v != "" {
		k, err := parsePageKey(v)
		if err != nil {
			return err
		}
		cursor = &k
	}
	template := q.Get("template")

	var matched []*runner.Session
	if running || paused {
		for _, s := range f.m.List() {
			info := s.Info()
			if !matches(info.Labels, filter) || info.CreatedAt.Before(after) {
				continue
			}
			if isPaused := info.State == api.SessionPaused; (isPaused && !paused) || (!isPaused && !running) {
				continue
			}
			if template != "" && f.boxOf(s).template != template {
				continue
			}
			matched = append(matched, s)
		}
	}
	if order == "desc" {
		slices.Reverse(matched) // List is oldest first
	}
	c.Response().Header().Set("X-Total-Running", strconv.Itoa(len(matched)))
	page := matched
	if cursor != nil {
		i := slices.IndexFunc(page, func(s *runner.Session) bool { return cursor.before(keyOf(s), order) })
		if i < 0 {
			i = len(page)
		}
		page = page[i:]
	}
	if len(page) > limit {
		page = page[:limit]
		c.Response().Header().Set("X-Next-Token", keyOf(page[len(page)-1]).String())
	}
	out := make([]sandboxJSON, 0, len(page))
	for _, s := range page {
		out = append(out, f.sandboxJSON(s, f.boxOf(s), viewListed))
	}
	return c.JSON(http.StatusOK, out)
}

// pageKey is where a page of the list ends: the last sandbox's start
// time and id.
type pageKey struct {
	at time.Time
	id string
}

func keyOf(s *runner.Session) pageKey {
	info := s.Info()
	return pageKey{info.CreatedAt, info.ID}
}

func (k pageKey) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(k.at.UnixNano(), 10) + "/" + k.id))
}

func parsePageKey(v string) (pageKey, error) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	ns, id, ok := strings.Cut(string(b), "/")
	n, nerr := strconv.ParseInt(ns, 10, 64)
	if err != nil || !ok || nerr != nil || id == "" {
		return pageKey{}, invalid(fmt.Sprintf("nextToken: %q is not a token this server gave", v))
	}
	return pageKey{time.Unix(0, n).UTC(), id}, nil
}

// before reports whether the cursor k comes before o in the order, so
// that o belongs to the next page.
func (k pageKey) before(o pageKey, order string) bool {
	c := k.at.Compare(o.at)
	if c == 0 {
		c = strings.Compare(k.id, o.id)
	}
	if order == "desc" {
		return c > 0
	}
	return c < 0
}

// parseMetadata reads the metadata filter as the SDKs send it: a query
// string "k=v&k2=v2" whose keys and values were escaped once more (E2B
// unescapes the whole and then each part).
func parseMetadata(q string) (map[string]string, error) {
	if q == "" {
		return nil, nil
	}
	s, err := url.QueryUnescape(q)
	if err != nil {
		return nil, invalid(fmt.Sprintf("metadata: %v", err))
	}
	out := map[string]string{}
	for pair := range strings.SplitSeq(s, "&") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || strings.Contains(v, "=") {
			return nil, invalid(fmt.Sprintf("metadata: %q is not key=value", pair))
		}
		if k, err = url.QueryUnescape(k); err != nil {
			return nil, invalid(fmt.Sprintf("metadata: key %q: %v", k, err))
		}
		if v, err = url.QueryUnescape(v); err != nil {
			return nil, invalid(fmt.Sprintf("metadata: value %q: %v", v, err))
		}
		out[k] = v
	}
	return out, nil
}

func matches(labels, filter map[string]string) bool {
	for k, v := range filter {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
