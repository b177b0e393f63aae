// Package agentd is the daemon that runs inside every sandbox: it starts
// (or attaches to) the X server, keeps it running (restarting Xvfb and the
// window manager when they die, dialling an attached display again when
// it comes back), and serves the agent API over HTTP: screenshots, input
// as core actions, the cursor, commands, files, named shell sessions, the
// window list and the clipboard. Every route but /healthz needs the
// sandbox's bearer token. Commands it runs find the embedded pyautogui
// module on PYTHONPATH, pointed at this agentd. [Client] is its Go client.
package agentd
