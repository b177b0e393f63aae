// Package envd serves E2B's in-sandbox API ("envd") from agentd, so that
// E2B's SDKs and e2b_desktop drive a deskrun sandbox unchanged: the
// Connect services process.Process and filesystem.Filesystem (both
// codecs, JSON and binary protobuf, as connect-go gives them), the plain
// HTTP routes GET and POST /files (streamed both ways) and GET /health.
// The wire contract, messages and Connect code are package api/e2b/envd
// and its generated packages.
//
// The interface with deskrun serve, which routes an E2B client's envd
// calls to the session's agentd:
//
//   - agentd serves envd on its existing HTTP listener, at envd's own
//     paths (/process.Process/..., /filesystem.Filesystem/..., /files,
//     /health), behind the same bearer-token check as /v1.
//   - deskrun serve checks the client's X-Access-Token, forwards with
//     agentd's bearer token in Authorization, and names the acting user
//     the SDK sent (Authorization: Basic base64("user:")) in the header
//     [envd.UserHeader] ("user" or "root"); /files also takes envd's
//     username query parameter, which wins over the header.
//   - "user", an absent header and agentd's own user name act as the
//     desktop user, which is the user agentd runs as. "root" acts as
//     root only where the sandbox may become root: agentd runs as root,
//     or its processes may raise their privileges (no no-new-privileges:
//     a session created with sudo) and sudo is installed, when commands
//     run through sudo with the sandbox's sudo password (never more than
//     the desktop user's own `sudo` in a command could do). Elsewhere,
//     and for file calls as root when agentd is not root, the answer is
//     permission_denied saying why.
//
// Commands run as Start's process config says (E2B's SDKs send
// /bin/bash -l -c CMD), with agentd's command environment (the sandbox's,
// DISPLAY, the command mark agentd's kill finds) and the config's envs
// over it. Output is streamed as it comes, in chunks of at most 32 KiB,
// with keepalives when a stream is idle (Keepalive-Ping-Interval seconds,
// 90 by default); a stream's Connect-Timeout-Ms kills its process when it
// runs out; a client that goes away leaves the process running, for
// Connect, List, SendInput and SendSignal to find by pid or tag.
//
// Paths are resolved as envd resolves them (a leading ~ and relative
// paths against the acting user's home) and go through the same guard
// as agentd's /v1/files (agentd/internal/sandboxfs: agentd's own /proc
// entries are refused, files are replaced through a temporary file).
//
// It depends on connectrpc.com/connect and the protobuf runtime for the
// services, golang.org/x/sys/unix for terminals (/dev/ptmx, agentd is
// built without cgo) and inotify (the watchers), containerd/errdefs for
// the error classes agentd's file guard gives, and nothing of agentd's
// server: agentd hands it what it needs in [Config].
package envd
