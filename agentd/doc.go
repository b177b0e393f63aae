// Package agentd is the daemon that runs inside every sandbox: it starts
// (or attaches to) the X server, keeps it running (restarting Xvfb and the
// window manager when they die, dialling an attached display again when
// it comes back), and serves the agent API over HTTP: screenshots, input
// as core actions, the cursor, commands, files, named shell sessions, the
// windows (list, one window's client area and state, activate, close,
// minimize, maximize, restore, move/resize), the clipboard, raw TCP tunnels to ports of the sandbox's
// loopback (GET /v1/ports/{port} upgraded to "tcp") and the browser (POST
// /v1/browser/{action}, package agentd/browser: Chromium on the desktop,
// started on first use, or one started there with a DevTools port), and a
// live view of the display as RFB over a WebSocket (GET /v1/vnc, package
// agentd/rfb), and a recording of it (POST, DELETE and GET /v1/recording:
// VP8 in WebM, frames from its own capture piped to ffmpeg, see
// record.go for why). Every
// route but /healthz needs the
// sandbox's bearer token. Commands it runs find the embedded pyautogui
// module on PYTHONPATH, pointed at this agentd. Package agentd/client is its Go client.
package agentd
