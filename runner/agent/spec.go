package agent

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/containerd/errdefs"
)

// SpecOptions is what [FromSpec] needs beside the spec itself: the
// credentials and endpoints the caller was given. Package code reads no
// environment; deskrun fills these from its flags and environment
// (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...). Every field may be empty.
type SpecOptions struct {
	// Model, when set, overrides the model a spec names.
	Model string
	// AnthropicKey and AnthropicBaseURL configure anthropic[:MODEL];
	// an empty base URL means the API's own.
	AnthropicKey     Secret
	AnthropicBaseURL string
	// OpenAIKey and OpenAIBaseURL configure openai[:MODEL].
	OpenAIKey     Secret
	OpenAIBaseURL string
	// HTTPToken is sent as a bearer token to an http(s) agent server.
	HTTPToken Secret
}

// SpecHelp lists the agent specs [FromSpec] accepts.
const SpecHelp = "replay, replay:DIR, an http(s) URL, anthropic[:MODEL] or openai[:MODEL]"

// FromSpec makes the agent a spec names, as `deskrun eval --agent` and
// POST /v1/runs take it:
//
//	replay             each task's reference solution ([Replay])
//	replay:DIR         the recorded calls of DIR/<task id>.json|.yaml ([LoadSolutions])
//	http://HOST/PATH   an agent server ([HTTP]); https too
//	anthropic[:MODEL]  Claude through the Anthropic API ([NewAnthropic])
//	openai[:MODEL]     OpenAI computer use through the Responses API ([NewOpenAI])
//
// An unknown spec, or one missing what it needs (an API key), is an error
// of class [errdefs.ErrInvalidArgument]; a replay folder that cannot be
// read keeps the class of its error. Messages do not name the field the
// spec came from: callers prefix it ("--agent: ", "agent: ").
func FromSpec(spec string, o SpecOptions) (Agent, error) {
	name, arg, _ := strings.Cut(spec, ":")
	switch {
	case spec == "replay":
		return Replay{}, nil
	case name == "replay":
		if arg == "" {
			return nil, errdefs.ErrInvalidArgument.WithMessage("replay: want replay or replay:DIR, got an empty folder")
		}
		sols, err := LoadSolutions(arg)
		if err != nil {
			return nil, err
		}
		return Replay{Solutions: sols}, nil
	case strings.HasPrefix(spec, "http://"), strings.HasPrefix(spec, "https://"):
		if len(spec) == len(name)+len("://") {
			return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%q has no host", spec))
		}
		u, frag, _ := strings.Cut(spec, "#")
		h := HTTP{URL: u, Token: string(o.HTTPToken)}
		if frag != "" {
			q, err := url.ParseQuery(frag)
			obs := q.Get("observation")
			if err != nil || obs == "" || len(q) != 1 || !slices.Contains(ObservationTypes, obs) {
				return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%q: the fragment must be #observation=TYPE, TYPE one of %s", Redact(spec), strings.Join(ObservationTypes, ", ")))
			}
			h.Observe = obs
		}
		return h, nil
	case name == "anthropic":
		return NewAnthropic(AnthropicConfig{APIKey: o.AnthropicKey, BaseURL: o.AnthropicBaseURL, Model: cmp.Or(o.Model, arg)})
	case name == "openai":
		return NewOpenAI(OpenAIConfig{APIKey: o.OpenAIKey, BaseURL: o.OpenAIBaseURL, Model: cmp.Or(o.Model, arg)})
	}
	return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("unknown agent %q (want %s)", spec, SpecHelp))
}

// Redact returns an agent spec fit to store, log and show: an http(s) URL
// loses its user information (user names and passwords are credentials,
// such as http://u:pass@host/ or https://token@host/) and the values of
// query parameters whose names speak of a secret (key, token, secret,
// pass, pwd, auth, sig, cred, session, cookie: ?key=, ?api_key=,
// ?access_token=, ?X-Amz-Signature=), which become "xxxxx"; other query
// values are kept. Other specs are returned as they are.
func Redact(spec string) string {
	if !strings.HasPrefix(spec, "http://") && !strings.HasPrefix(spec, "https://") {
		return spec
	}
	u, err := url.Parse(spec)
	if err != nil {
		// Not a URL deskrun can use; show its scheme and no more.
		scheme, _, _ := strings.Cut(spec, "://")
		return scheme + "://(unparsable URL)"
	}
	changed := false
	if u.User != nil {
		u.User = url.User("xxxxx")
		changed = true
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = "(unparsable query)"
			changed = true
		}
		for k, vs := range q {
			if secretParam(k) {
				for i := range vs {
					vs[i] = "xxxxx"
				}
				changed = true
			}
		}
		if err == nil && changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return spec
	}
	return u.String()
}

// secretParam reports whether a query parameter's name speaks of a
// secret.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "pass", "pwd", "auth", "sig", "cred", "session", "cookie"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
