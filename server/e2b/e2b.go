// Package e2b serves E2B's protocol on deskrun's sessions, so that E2B's
// SDKs run unchanged against deskrun serve: the control plane under the
// path prefix /e2b (POST /sandboxes, GET /v2/sandboxes and /sandboxes,
// GET and DELETE /sandboxes/{id}, POST .../timeout, .../connect and the
// older .../resume), the routing of envd calls (the headers E2b-Sandbox-Id
// and E2b-Sandbox-Port under /e2b, or the Host PORT-ID.DOMAIN) to the
// session's agentd, which serves envd itself, and the routing of the
// other ports of a Host PORT-ID.DOMAIN through the server's port proxy.
//
// It is a front: a template is an image, a sandbox a session of the
// [runner.Manager], metadata its labels, envVars its environment and a
// timeout its deadline ([runner.Session.SetDeadline]). What it keeps of
// its own is what E2B has and a session has not: each sandbox's envd
// access token (a fresh random one, checked against the X-Access-Token
// the SDK sends), its traffic token when it asked for one, and the
// template name it was created from, and the snapshots taken through it.
// Pause, resume, fork and snapshots are the runner's (snapshots.go); what
// deskrun does not do answers an E2B-shaped 501 naming it (see
// unsupported).
//
// It depends on runner for the sessions, api for the session requests,
// containerd/errdefs for the error classes the runner gives, echo for the
// routes of the control plane (as the server's) and net/http/httputil for
// the streaming proxy to agentd.
package e2b

import (
	"cmp"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
	"github.com/deskrun/deskrun/runner"
	"github.com/labstack/echo/v4"
)

// Prefix is the path under which the server serves the front:
// E2B_API_URL and E2B_SANDBOX_URL are both http://HOST:PORT/e2b.
const Prefix = "/e2b"

// EnvdPort is the port of envd in an E2B sandbox: the SDK's
// E2b-Sandbox-Port and the PORT of a Host PORT-ID.DOMAIN for envd.
const EnvdPort = envdapi.Port

// envdVersion is the version of envd the sandboxes report: the SDKs
// gate features on it (0.5.7: octet-stream uploads, 0.5.2: closing stdin,
// 0.4.0: the default user), all of which agentd's envd serves.
const envdVersion = "0.5.7"

// Headers of E2B's protocol.
const (
	headerAPIKey       = "X-API-KEY"
	headerAccessToken  = "X-Access-Token"
	headerSandboxID    = "E2b-Sandbox-Id"
	headerSandboxPort  = "E2b-Sandbox-Port"
	headerTrafficToken = "E2b-Traffic-Access-Token"
)

// DefaultTemplates are the templates a front knows when its Config names
// none: E2B's template name to deskrun's image.
var DefaultTemplates = map[string]string{
	"base":    "deskrun/minimal:latest",
	"desktop": "deskrun/desktop:latest",
	"osworld": "deskrun/osworld:latest",
}

// Config configures a [Front].
type Config struct {
	// Manager runs the sessions; required.
	Manager *runner.Manager
	// Token is the server's token: the API key the control plane
	// requires (X-API-KEY, or Authorization: Bearer) and what the front
	// sends to the server's port proxy. Empty means no key is checked.
	Token string
	// Domain is E2B_DOMAIN: the host (and port) at which the server is
	// reached, under which a sandbox's ports are PORT-ID.Domain. Empty
	// means "localhost".
	Domain string
	// Templates maps template names to images; nil means
	// [DefaultTemplates]. A template not in it is taken as an image name
	// when AnyImage is set, else refused.
	Templates map[string]string
	// AnyImage lets a create name any image as its template.
	AnyImage bool
	// Ports is the server's handler: a Host PORT-ID.DOMAIN of another
	// port than envd's is served by its port proxy,
	// /v1/sessions/{id}/ports/{port}/..., with the server's token. Nil
	// answers such requests 404.
	Ports http.Handler
	// PublicPorts serves those ports without a token, as E2B serves
	// them: a browser, which sends none, then opens a sandbox's pages
	// (e2b_desktop's stream URL). A sandbox created with
	// network.allowPublicTraffic false still needs its traffic token.
	// False asks for the server's token or the sandbox's envd token.
	PublicPorts bool
	// Logger receives the errors answered with a 5xx status. Nil
	// discards them.
	Logger *slog.Logger
}

// Front serves E2B's protocol; see the package comment. It is safe for
// concurrent use.
type Front struct {
	cfg  Config
	log  *slog.Logger
	m    *runner.Manager
	api  *echo.Echo
	envd *http.Transport

	mu        sync.Mutex
	boxes     map[string]*box      // by session id
	snapshots map[string]*snapshot // by snapshotID (NAME:default)
}

// box is what the front keeps of a sandbox beyond its session.
type box struct {
	template string
	// envdToken is checked against X-Access-Token on envd calls.
	envdToken string
	// trafficToken, when set, is required on the sandbox's other ports.
	trafficToken string
	// internet is allow_internet_access as the create sent it.
	internet *bool
	// cpuCount and memoryMB are what the sandbox's envd read of its
	// cgroup at create (0 where it could not be read).
	cpuCount, memoryMB int
}

// New returns a front over cfg.Manager.
func New(cfg Config) (*Front, error) {
	if cfg.Manager == nil {
		return nil, errors.New("e2b: no session manager")
	}
	if cfg.Templates == nil {
		cfg.Templates = DefaultTemplates
	}
	cfg.Domain = cmp.Or(cfg.Domain, "localhost")
	f := &Front{cfg: cfg, log: cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler)), m: cfg.Manager, boxes: map[string]*box{}, snapshots: map[string]*snapshot{}}
	f.envd = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}
	f.api = f.routes()
	return f, nil
}

// Handler returns next with the front in front of it: requests whose
// Host is PORT-ID.DOMAIN and requests under [Prefix] are the front's,
// everything else next's.
func (f *Front) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if port, id, ok := f.sandboxHost(r.Host); ok {
			f.serveSandbox(w, r, id, port, r.URL.Path)
			return
		}
		if r.URL.Path != Prefix && !strings.HasPrefix(r.URL.Path, Prefix+"/") {
			next.ServeHTTP(w, r)
			return
		}
		if id := r.Header.Get(headerSandboxID); id != "" {
			port := EnvdPort
			if p := r.Header.Get(headerSandboxPort); p != "" {
				n, err := strconv.Atoi(p)
				if err != nil || n < 1 || n > 65535 {
					writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: want a port 1..65535, got %q", headerSandboxPort, p))
					return
				}
				port = n
			}
			f.serveSandbox(w, r, id, port, strings.TrimPrefix(r.URL.Path, Prefix))
			return
		}
		f.api.ServeHTTP(w, r)
	})
}

// EnvLines are the environment lines that point E2B's SDKs at this
// front, served at base ("http://127.0.0.1:8080"); E2B_VALIDATE_API_KEY
// comes with them when the token is not shaped e2b_<hex>, which the SDKs
// otherwise refuse before sending it.
func (f *Front) EnvLines(base string) []string {
	key := f.cfg.Token
	if key == "" {
		key = "e2b_" + strings.Repeat("0", 40) // any key is taken
	}
	lines := []string{
		"E2B_API_URL=" + base + Prefix,
		"E2B_SANDBOX_URL=" + base + Prefix,
		"E2B_DOMAIN=" + f.cfg.Domain,
		"E2B_API_KEY=" + key,
	}
	if !keyShape.MatchString(key) {
		lines = append(lines, "E2B_VALIDATE_API_KEY=false")
	}
	return lines
}

// keyShape is the API key the SDKs accept without E2B_VALIDATE_API_KEY.
var keyShape = regexp.MustCompile(`\Ae2b_[0-9a-f]+\z`)

// hostLabel is the first label of a sandbox's host: PORT-ID.
var hostLabel = regexp.MustCompile(`\A([0-9]{1,5})-([0-9A-Za-z]+)\z`)

// sandboxHost reads a Host PORT-ID.DOMAIN.
func (f *Front) sandboxHost(host string) (port int, id string, ok bool) {
	label, rest, found := strings.Cut(host, ".")
	if !found || !sameHost(rest, f.cfg.Domain) {
		return 0, "", false
	}
	m := hostLabel.FindStringSubmatch(label)
	if m == nil {
		return 0, "", false
	}
	port, err := strconv.Atoi(m[1])
	if err != nil || port < 1 || port > 65535 {
		return 0, "", false
	}
	return port, m[2], true
}

// sameHost compares a request's host with the domain, the port of
// either ignored when the other has none.
func sameHost(host, domain string) bool {
	if strings.EqualFold(host, domain) {
		return true
	}
	h, hp := splitPort(host)
	d, dp := splitPort(domain)
	return strings.EqualFold(h, d) && (hp == "" || dp == "" || hp == dp)
}

func splitPort(s string) (host, port string) {
	if h, p, err := net.SplitHostPort(s); err == nil {
		return h, p
	}
	return s, ""
}

// authorized reports whether r carries the server's token as E2B's API
// key or as a bearer token.
func (f *Front) authorized(r *http.Request) bool {
	if f.cfg.Token == "" {
		return true
	}
	if k := r.Header.Get(headerAPIKey); k != "" && equal(k, f.cfg.Token) {
		return true
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && equal(b, f.cfg.Token) {
		return true
	}
	return false
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// newToken is a fresh random token.
func newToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// boxOf returns what the front keeps of sess, made on first use for a
// session created through deskrun's own API.
func (f *Front) boxOf(sess *runner.Session) *box {
	id := sess.ID()
	f.mu.Lock()
	b, ok := f.boxes[id]
	if !ok {
		b = &box{template: f.templateOf(sess.Info().Image), envdToken: newToken()}
		f.boxes[id] = b
	}
	f.mu.Unlock()
	if !ok {
		sess.OnEnd(func() { f.forget(id) })
	}
	return b
}

// adopt records b as what the front keeps of sess.
func (f *Front) adopt(sess *runner.Session, b *box) {
	id := sess.ID()
	f.mu.Lock()
	f.boxes[id] = b
	f.mu.Unlock()
	sess.OnEnd(func() { f.forget(id) })
}

func (f *Front) forget(id string) {
	f.mu.Lock()
	delete(f.boxes, id)
	f.mu.Unlock()
}

// templateOf names the template of an image: the template that maps to
// it, else the image itself.
func (f *Front) templateOf(image string) string {
	for name, img := range f.cfg.Templates {
		if img == image {
			return name
		}
	}
	return cmp.Or(image, "base")
}
