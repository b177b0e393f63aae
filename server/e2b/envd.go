package e2b

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"

	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
	"github.com/deskrun/deskrun/runner"
)

// serveSandbox answers a request for port of sandbox id, path being its
// path inside the sandbox: envd's port goes to the session's agentd,
// any other through the server's port proxy. An unknown or ended sandbox
// is a 502, as E2B's proxy answers (the SDKs take it for a sandbox that
// is gone).
func (f *Front) serveSandbox(w http.ResponseWriter, r *http.Request, id string, port int, path string) {
	sess, err := f.m.Get(id)
	if err != nil {
		writeError(w, http.StatusBadGateway, fmt.Sprintf("sandbox %q not found: it has ended or never existed", id))
		return
	}
	b := f.boxOf(sess)
	if path == "" {
		path = "/"
	}
	if port == EnvdPort {
		f.serveEnvd(w, r, sess, b, path)
		return
	}
	f.servePort(w, r, sess, b, port, path)
}

// serveEnvd forwards an envd call to the session's agentd, which serves
// envd at the same paths: the sandbox's X-Access-Token is checked and
// replaced by agentd's bearer token, and the acting user the SDK names
// (Authorization: Basic base64("user:")) goes in X-Deskrun-Envd-User.
// Bodies stream both ways: each write of a Connect stream is flushed as
// it comes, and uploads are never read whole.
func (f *Front) serveEnvd(w http.ResponseWriter, r *http.Request, sess *runner.Session, b *box, path string) {
	health := path == envdapi.HealthPath && (r.Method == http.MethodGet || r.Method == http.MethodHead)
	if !health && !equal(r.Header.Get(headerAccessToken), b.envdToken) {
		writeError(w, http.StatusUnauthorized, fmt.Sprintf("%s: missing or not sandbox %s's envd access token", headerAccessToken, sess.ID()))
		return
	}
	user, err := basicUser(r.Header.Get("Authorization"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	inst := sess.Instance()
	target, err := url.Parse(inst.AgentURL)
	if err != nil {
		writeError(w, http.StatusBadGateway, fmt.Sprintf("sandbox %s: agentd's address %q: %v", sess.ID(), inst.AgentURL, err))
		return
	}
	rp := &httputil.ReverseProxy{
		Transport:     f.envd,
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = target.Scheme, target.Host
			pr.Out.URL.Path = strings.TrimSuffix(target.Path, "/") + path
			pr.Out.URL.RawPath = ""
			pr.Out.Host = target.Host
			h := pr.Out.Header
			stripFront(h)
			h.Del("Authorization")
			if inst.Token != "" {
				h.Set("Authorization", "Bearer "+inst.Token)
			}
			if user != "" {
				h.Set(envdapi.UserHeader, user)
			}
		},
		ErrorHandler: proxyError(sess.ID(), "envd"),
	}
	fullDuplex(w)
	rp.ServeHTTP(w, r)
}

// servePort forwards a request for another port of the sandbox through
// the server's port proxy. A sandbox created with
// network.allowPublicTraffic false needs its traffic token
// (e2b-traffic-access-token); any other needs one of the sandbox's
// tokens or the server's, as the session's own port proxy does, unless
// the front serves ports publicly (Config.PublicPorts).
func (f *Front) servePort(w http.ResponseWriter, r *http.Request, sess *runner.Session, b *box, port int, path string) {
	if f.cfg.Ports == nil {
		writeError(w, http.StatusNotFound, "this server does not proxy sandbox ports")
		return
	}
	var ok bool
	switch {
	case b.trafficToken != "":
		ok = equal(r.Header.Get(headerTrafficToken), b.trafficToken)
	case f.cfg.PublicPorts:
		ok = true
	default:
		ok = f.authorized(r) || equal(r.Header.Get(headerAccessToken), b.envdToken)
	}
	if !ok {
		name := headerTrafficToken
		if b.trafficToken == "" {
			name = headerAccessToken + " or " + headerAPIKey
		}
		writeError(w, http.StatusUnauthorized, fmt.Sprintf("%s: missing or not sandbox %s's token", name, sess.ID()))
		return
	}
	out := r.Clone(r.Context())
	out.URL.Path = "/v1/sessions/" + url.PathEscape(sess.ID()) + "/ports/" + strconv.Itoa(port) + path
	out.URL.RawPath = ""
	out.RequestURI = out.URL.RequestURI()
	stripFront(out.Header)
	out.Header.Del("Authorization")
	if f.cfg.Token != "" {
		out.Header.Set("Authorization", "Bearer "+f.cfg.Token)
	}
	fullDuplex(w)
	f.cfg.Ports.ServeHTTP(w, out)
}

// fullDuplex lets a forwarded request's body be read after its answer
// has begun: a Connect stream's first message can come back while the
// proxy still copies the request's last bytes, and net/http's HTTP/1.1
// server otherwise closes the request body at the first write (the
// transport then drops the connection to agentd mid-stream).
func fullDuplex(w http.ResponseWriter) {
	_ = http.NewResponseController(w).EnableFullDuplex() // HTTP/2 is always full duplex
}

// stripFront removes the front's own headers from a request going into
// a sandbox.
func stripFront(h http.Header) {
	for _, k := range []string{headerAccessToken, headerAPIKey, headerSandboxID, headerSandboxPort, headerTrafficToken, envdapi.UserHeader} {
		h.Del(k)
	}
}

// basicUser reads the acting user of an envd call: Authorization: Basic
// base64("user:"). No header is no user (envd's default).
func basicUser(h string) (string, error) {
	if h == "" {
		return "", nil
	}
	enc, ok := strings.CutPrefix(h, "Basic ")
	if !ok {
		return "", fmt.Errorf("Authorization: want Basic base64(\"user:\") naming envd's acting user")
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return "", fmt.Errorf("Authorization: the Basic credentials are not base64: %v", err)
	}
	user, _, _ := strings.Cut(string(raw), ":")
	return user, nil
}

// proxyError answers a failed forward to a sandbox: a sandbox whose
// agentd does not answer is a 502, as E2B's proxy answers.
func proxyError(id, what string) func(http.ResponseWriter, *http.Request, error) {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, context.Canceled) {
			return
		}
		writeError(w, http.StatusBadGateway, fmt.Sprintf("sandbox %s: %s does not answer: %v", id, what, err))
	}
}
