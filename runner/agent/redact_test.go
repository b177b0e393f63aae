package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"http://u:pass@127.0.0.1:9000/step":                                   "http://xxxxx@127.0.0.1:9000/step",
		"https://tok3n@agents.example/step?a=1":                               "https://xxxxx@agents.example/step?a=1",
		"http://127.0.0.1:9000/step":                                          "http://127.0.0.1:9000/step",
		"replay:tasks/solutions":                                              "replay:tasks/solutions",
		"anthropic:claude-sonnet-4-5":                                         "anthropic:claude-sonnet-4-5",
		"http://u:p%zz@host/":                                                 "http://(unparsable URL)",
		"https://agents.example/step?key=AIzaSECRET&model=m":                  "https://agents.example/step?key=xxxxx&model=m",
		"http://h/step?api_key=s&access_token=t&X-Amz-Signature=x&Password=p": "http://h/step?Password=xxxxx&X-Amz-Signature=xxxxx&access_token=xxxxx&api_key=xxxxx",
		"http://h/step?a=%zz&key=s":                                           "http://h/step?(unparsable query)",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHTTPAgentErrorsHideCredentials: an agent server's URL with
// credentials never shows them in an error, which results and reports
// keep.
func TestHTTPAgentErrorsHideCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "u" || p != "s3cret" {
			t.Errorf("basic auth %q %q %v: the credentials of the URL are not sent", u, p, ok)
		}
		http.Error(w, "nope", http.StatusTeapot)
	}))
	defer srv.Close()
	spec := strings.Replace(srv.URL, "http://", "http://u:s3cret@", 1) + "/step"
	for _, url := range []string{spec, "http://u:s3cret@127.0.0.1:1/step"} {
		ag, err := FromSpec(url, SpecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ag.Step(context.Background(), Request{TaskID: "t"})
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "xxxxx@") {
			t.Errorf("error %v: want one naming the server without its password", err)
		}
	}
}

// TestHTTPAgentErrorsHideQuerySecrets: a secret in the agent URL's query
// (?key=) shows in no error, even one net/http made.
func TestHTTPAgentErrorsHideQuerySecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusTeapot)
	}))
	defer srv.Close()
	for _, u := range []string{srv.URL + "/step?key=s3cret", "http://127.0.0.1:1/step?key=s3cret&model=m"} {
		ag, err := FromSpec(u, SpecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ag.Step(context.Background(), Request{TaskID: "t"})
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "key=xxxxx") {
			t.Errorf("error %v: want one naming the server without its key", err)
		}
	}
}
