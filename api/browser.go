package api

import "encoding/json"

// The browser: agentd drives the sandbox's Chromium through the DevTools
// protocol (POST /v1/browser/{action} on agentd). The actions are
// BrowserActions; each reads the fields of BrowserRequest it needs.

// BrowserActions are the actions of agentd's browser route.
var BrowserActions = []string{
	"view", "navigate", "click", "input", "move_mouse", "press_key", "select_option",
	"scroll_up", "scroll_down", "console_exec", "console_view", "save_image", "restart",
	"tabs", "open_tabs", "close_tabs", "page",
}

// BrowserRequest is the body of a browser action.
type BrowserRequest struct {
	// URL for navigate (http, https, file or about); for page, a URL to
	// load in a new tab, read and close.
	URL string `json:"url,omitempty"`
	// URLs for open_tabs, each opened in a new tab.
	URLs []string `json:"urls,omitempty"`
	// Tab names a tab (BrowserTab.ID) for page and console_exec: they then
	// act on it instead of the tools' tab; for page, empty means the
	// active tab.
	Tab string `json:"tab,omitempty"`
	// IDs are the tabs close_tabs closes (BrowserTab.ID).
	IDs []string `json:"ids,omitempty"`
	// Index is an element number of the last view (click, input,
	// select_option).
	Index *int `json:"index,omitempty"`
	// X and Y are a viewport point in CSS pixels (click, input,
	// move_mouse, save_image).
	X *float64 `json:"x,omitempty"`
	Y *float64 `json:"y,omitempty"`
	// Text replaces an editable element's content (input); PressEnter
	// presses Enter afterwards.
	Text       string `json:"text,omitempty"`
	PressEnter bool   `json:"press_enter,omitempty"`
	// Option is the option number, from 0 (select_option).
	Option *int `json:"option,omitempty"`
	// Key is a key or combination such as "Control+Enter" (press_key).
	Key string `json:"key,omitempty"`
	// Edge scrolls to the top (scroll_up) or bottom (scroll_down).
	Edge bool `json:"edge,omitempty"`
	// JavaScript is evaluated in the page (console_exec).
	JavaScript string `json:"javascript,omitempty"`
	// MaxLines bounds console_view's lines; zero means 100.
	MaxLines int `json:"max_lines,omitempty"`
	// SaveDir (absolute) and BaseName (a file name stem) say where
	// save_image writes.
	SaveDir  string `json:"save_dir,omitempty"`
	BaseName string `json:"base_name,omitempty"`
	// Screenshot adds a PNG of the viewport to view's answer.
	Screenshot bool `json:"screenshot,omitempty"`
	// Port chooses the browser: 0 is agentd's own (started on demand);
	// N > 0 a browser listening for DevTools on 127.0.0.1:N inside the
	// sandbox; -1 the browser the desktop runs (one started with
	// --remote-debugging-port, as OSWorld's tasks launch it), else
	// agentd's own.
	Port int `json:"port,omitempty"`
}

// BrowserResult is the answer of a browser action; the fields the action
// fills are set.
type BrowserResult struct {
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
	// Text is view's readable page, interactive elements written in
	// place as [N]<tag attrs>label</tag>; Elements is how many there are.
	Text     string `json:"text,omitempty"`
	Elements int    `json:"elements,omitempty"`
	// Scroll says where the viewport is on the page.
	Scroll string `json:"scroll,omitempty"`
	// Screenshot is the viewport as PNG.
	Screenshot []byte `json:"screenshot,omitempty"`
	// Value is console_exec's result as JSON.
	Value json.RawMessage `json:"value,omitempty"`
	// Lines are console_view's console lines, oldest first.
	Lines []string `json:"lines,omitempty"`
	// Path is where save_image wrote the image.
	Path string `json:"path,omitempty"`
	// Tabs are the browser's page tabs (tabs).
	Tabs []BrowserTab `json:"tabs,omitempty"`
	// Closed is how many tabs close_tabs closed.
	Closed int `json:"closed,omitempty"`
	// Content is page's HTML (with URL and Title).
	Content string `json:"content,omitempty"`
}

// BrowserTab is one page tab.
type BrowserTab struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	// Active marks the tab whose page the browser shows.
	Active bool `json:"active"`
}
