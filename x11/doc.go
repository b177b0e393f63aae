// Package x11 is deskrun's X11 client: input injection through the XTEST
// extension (pointer motion, buttons, the scroll wheel as buttons 4 to 7,
// keys, chords and exact typing of any Unicode text), screen capture with
// GetImage and an MIT-SHM fast path, and windows through EWMH window
// managers: the list, activation, closing, minimizing, maximizing,
// restoring and moving/resizing (ewmh.go writes the few EWMH and ICCCM
// messages itself, xgbutil being unavailable), directly on a bare X
// server. It is pure Go on github.com/jezek/xgb and knows
// nothing of HTTP; agentd serves it. Input goes over a second connection
// that speaks the protocol itself (internal/wire): a batch of XTEST
// requests and the request that checks them leave in one write, and the
// answer is read on the caller's goroutine, which halves the cost of a
// checked pointer move against xgb's request and reply goroutines.
//
// Typing text whose characters have no key in the current keyboard map
// binds their keysyms to spare keycodes. Bindings stay in place while
// they are likely to be looked up by a client that has not yet processed
// the key events (clients refresh their copy of the map lazily), and are
// undone when idle and on Close, so the map is left as it was found.
package x11
