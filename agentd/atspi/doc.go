// Package atspi reads and drives the accessibility trees of the desktop's
// applications through AT-SPI2, the accessibility protocol of Linux
// desktops, spoken over D-Bus.
//
// D-Bus is spoken through github.com/godbus/dbus/v5, the maintained pure-Go
// D-Bus library (no libdbus, no cgo, no GLib main loop); no maintained Go
// AT-SPI client exists, so the AT-SPI interfaces (Accessible, Component,
// Text, Value, Action, EditableText, Selection) are called by name here.
//
// Robustness: every D-Bus call has its own deadline (CallTimeout) inside a
// budget for each application (AppBudget). Applications are read
// concurrently (at most Concurrency at once) and each on its own: an
// application that stops answering (a stopped or busy process) costs at most
// its budget, its subtree is marked partial and the rest of the desktop is
// read as usual; an application that timed out is probed with a short call
// before its tree is read again.
//
// Reading: where an application answers AT-SPI's Cache interface (GTK 3,
// LibreOffice and Chromium through at-spi2-atk), one GetItems call gives
// the skeleton of its tree (objects, parents, indexes, child counts,
// interfaces, names, roles, descriptions, states); only what the caller's
// Detail needs is then asked object by object, pipelined (attributes,
// text, values, actions, and extents of showing objects). Objects the
// cache lacks (the children of objects that manage their descendants,
// such as a sheet's cells, menus whose order the cache does not give, ones
// not cached yet) are walked, and applications without a cache are walked
// entirely. Chromium exposes its whole tree only once asked for
// attributes, so every read asks for the application object's.
//
// Applications that offer a peer-to-peer connection
// (org.a11y.atspi.Application.GetApplicationBusAddress, at-spi2-atk's
// bridge) are called over it, without the bus daemon in between: a
// Chromium page's tree reads in about two thirds of the time.
//
// Caching: the tree of each application is kept and reused until AT-SPI
// reports a change in it (the object, window and focus events, which the
// client registers with the registry daemon so applications emit them) or
// until CacheTTL has passed, whichever comes first: geometry changes of a
// moved window do not always raise an event, so the short TTL bounds how
// stale bounds can be. A tree read with stubs (a browser's own views,
// whose pages the caller reads over DevTools) is kept longer: while no
// event comes from one of its objects (events from inside the stubs do
// not count), a window event does not come, and its windows' boxes,
// asked over the bus on each use (so the events sent before the answer
// have been handled: signals are handled as the connection reads them),
// are where they were; a new name or state is applied from the event.
//
// Formats: XML writes the tree as OSWorld's desktop server does (root
// desktop-frame, tags are role names with dashes, its namespaces, its depth
// and width limits and its rule for the visible cells of a LibreOffice Calc
// sheet); Elements lists the interactable elements with an index, for
// models and for set-of-marks; the Node tree marshals to JSON for programs.
package atspi
