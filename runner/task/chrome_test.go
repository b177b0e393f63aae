package task

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// Browser makes agentdSandbox a BrowserHost.
func (a *agentdSandbox) Browser(ctx context.Context, action string, r api.BrowserRequest) (api.BrowserResult, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return api.BrowserResult{}, err
	}
	var res api.BrowserResult
	_, err = a.do(ctx, http.MethodPost, "/v1/browser/"+action, bytes.NewReader(body), &res)
	return res, err
}

// needBrowser is the path of the host's Chromium; the test fails
// without one.
func needBrowser(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"chromium", "google-chrome", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium installed (scripts/install-deps.sh installs it)")
	return ""
}

// TestChromeTasks runs OSWorld-format Chrome tasks of our own on agentd
// with a browser launched by the task (--remote-debugging-port, as
// OSWorld's tasks launch google-chrome) against pages served here: each
// scores 0 unsolved and 1 once its reference solution ran.
func TestChromeTasks(t *testing.T) {
	browser := needBrowser(t)
	a := startAgentd(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Home</title><h1>Shop</h1><a id="prices" href="/prices">Prices</a>`)
	})
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Order</title><form action="/thanks"><input name="name"><button>Send</button></form>`)
	})
	mux.HandleFunc("/prices", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Prices</title><p class="price"> 9.99 </p>`)
	})
	mux.HandleFunc("/thanks", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Thanks</title><p>Thank you, <span class="who"> %s </span></p>`, html.EscapeString(r.URL.Query().Get("name")))
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	files, err := filepath.Glob("testdata/chrome/*.json")
	if err != nil || len(files) < 4 {
		t.Fatalf("chrome tasks: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			port := freePort(t)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.NewReplacer("{SITE}", site.URL, "{PORT}", strconv.Itoa(port), "{BROWSER}", browser).Replace(string(data)))
			tk, err := Parse(data, FormatJSON)
			if err != nil {
				t.Fatal(err)
			}
			checkTask(t, tk, func(t *testing.T) Sandbox {
				// A fresh browser each time: end the one the last run launched.
				stopBrowser(t, port)
				t.Cleanup(func() { stopBrowser(t, port) })
				return a
			})
		})
	}
}

// stopBrowser ends the browser the task launched on port (agentd runs on
// this host, so its processes are ours to find by their command line) and
// waits for it to go.
func stopBrowser(t *testing.T, port int) {
	flag := []byte("--remote-debugging-port=" + strconv.Itoa(port) + "\x00")
	pids := func() []int {
		var out []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && bytes.Contains(b, flag) && !bytes.Contains(b, []byte("--type=")) {
				out = append(out, pid)
			}
		}
		return out
	}
	for _, pid := range pids() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(pids()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	for _, pid := range pids() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
