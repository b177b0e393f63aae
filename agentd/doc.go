// Package agentd is the daemon that runs inside every sandbox: it starts
// (or attaches to) the X server, keeps it running, and serves the agent
// API over HTTP: screenshots, input as core actions, the cursor, commands,
// files, named shell sessions and the window list. Every route but
// /healthz needs the sandbox's bearer token. [Client] is its Go client.
package agentd
