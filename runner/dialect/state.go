package dialect

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/deskrun/deskrun/api"
)

// State is what a session remembers between tool calls: the screen size,
// the size of the last screenshot a model saw (the space of its pixel
// coordinates), held keys and buttons, the OSWorld step counter, the
// text editor's undo history and the console of shell sessions kept
// without a [ShellHost]. The zero value is ready to use; one State
// belongs to one session. Its methods and Dialect.Call are safe for
// concurrent use (calls on one State run one at a time).
type State struct {
	// Now returns the time for OSWorld's step timestamps; nil means
	// time.Now. Set it before the first call.
	Now func() time.Time

	mu     sync.Mutex
	screen api.Screen // the real screen; zero until known
	shot   api.Screen // the last full screenshot returned to the model; zero if none
	view   *api.Rect  // the part of the screen that screenshot showed; nil: all
	steps  int        // OSWorld steps executed
	held   map[string]bool
	undo   map[string][]string // editor: path -> earlier contents, oldest first
	shells map[string]*console // shell sessions kept without a ShellHost
	// elements are the accessibility elements of the last som or ax
	// capture; hermes' element indexes refer to them.
	elements []api.Element
	// bound is the window of Anthropic's bind_window; nil if none.
	bound *boundWindow
	// indicator is the label of status_indicator; nil if none shows.
	indicator *indicator
}

// console is a shell session kept by the dialect itself: its directory
// and the text of every command and its output.
type console struct {
	dir      string
	command  string
	output   string
	exitCode *int
}

func (st *State) now() time.Time {
	if st.Now != nil {
		return st.Now()
	}
	return time.Now()
}

// LastScreenshot returns the size of the last full screenshot a model was
// given, the space pixel coordinates refer to; zero if there was none.
func (st *State) LastScreenshot() api.Screen {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.shot
}

// Release returns the core actions that release every key and mouse
// button a dialect pressed and left held (OSWorld KEY_DOWN and
// MOUSE_DOWN, Anthropic left_mouse_down), and forgets them. A session
// runs them before it ends or hands the desktop to someone else.
func (st *State) Release() []api.Action {
	st.mu.Lock()
	defer st.mu.Unlock()
	names := make([]string, 0, len(st.held))
	for h := range st.held {
		names = append(names, h)
	}
	sort.Strings(names)
	var out []api.Action
	for _, h := range names {
		kind, name, _ := strings.Cut(h, ":")
		if kind == "button" {
			out = append(out, api.Action{Type: api.ActionButtonUp, Button: name})
		} else {
			out = append(out, api.Action{Type: api.ActionKeyUp, Key: name})
		}
	}
	st.held = nil
	return out
}

// track records presses and releases of the executed actions.
// The caller holds st.mu.
func (st *State) track(actions []api.Action) {
	for _, a := range actions {
		button := a.Button
		if button == "" {
			button = api.ButtonLeft
		}
		switch a.Type {
		case api.ActionKeyDown:
			st.hold("key:"+a.Key, true)
		case api.ActionKeyUp:
			st.hold("key:"+a.Key, false)
		case api.ActionButtonDown:
			st.hold("button:"+button, true)
		case api.ActionButtonUp:
			st.hold("button:"+button, false)
		}
	}
}

func (st *State) hold(name string, down bool) {
	if down {
		if st.held == nil {
			st.held = map[string]bool{}
		}
		st.held[name] = true
		return
	}
	delete(st.held, name)
}

func (st *State) holding(name string) bool { return st.held[name] }
