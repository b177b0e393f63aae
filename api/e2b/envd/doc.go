// Package envd is the contract of E2B's in-sandbox API ("envd") as
// deskrun serves it: the Connect services process.Process and
// filesystem.Filesystem (declared in process/process.proto and
// filesystem/filesystem.proto with envd's own names and field numbers;
// the Go messages and the Connect clients and handlers are generated
// into process, filesystem and their *connect packages by `go
// generate`, see gen.go), plus the plain HTTP routes /files and /health
// and what passes between deskrun serve and agentd.
//
// agentd (package agentd/envd) serves it on its existing HTTP listener,
// behind its bearer token like /v1, at envd's own paths:
//
//	/process.Process/{Start,Connect,List,SendInput,StreamInput,SendSignal,CloseStdin,Update}
//	/filesystem.Filesystem/{Stat,MakeDir,Move,ListDir,Remove,WatchDir,CreateWatcher,GetWatcherEvents,RemoveWatcher}
//	GET  /files?path=&username=   the file's bytes, streamed
//	POST /files?path=&username=   multipart/form-data ("file" parts) or
//	                              application/octet-stream, streamed to
//	                              disk; answers a JSON list of [FileEntry]
//	GET  /health                  204
//
// deskrun serve checks the E2B client's X-Access-Token itself, replaces
// the Authorization header with agentd's bearer token, and passes the
// acting user the SDK sent (Authorization: Basic base64("user:")) in
// [UserHeader]. agentd acts as the desktop user for [UserDefault] or no
// header, and as root for [UserRoot] only where the sandbox may become
// root; otherwise it answers permission_denied naming why.
//
// It imports nothing of deskrun: only the protobuf and Connect runtimes
// the generated code needs.
package envd

//go:generate go run gen.go

// UserHeader carries the user a request acts as, from deskrun serve to
// agentd: a user name such as "user" or "root".
const UserHeader = "X-Deskrun-Envd-User"

// The user names E2B's SDKs send.
const (
	// UserDefault is the sandbox's desktop user, also when no user is
	// named.
	UserDefault = "user"
	// UserRoot is the administrator.
	UserRoot = "root"
)

// Port is the sandbox port E2B's SDKs address envd by (the
// E2b-Sandbox-Port header, or the PORT-ID.DOMAIN host).
const Port = 49983

// The plain HTTP routes.
const (
	FilesPath   = "/files"
	HealthPath  = "/health"
	MetricsPath = "/metrics"
)

// Metrics is the body of GET /metrics: what the sandbox has and uses,
// read from its own cgroup (the machine's figures where it has no
// limit of its own). CPUUsedPct is the share of CPUCount cores used
// since the previous read (the first read: since envd started).
type Metrics struct {
	TS          int64   `json:"ts"`
	CPUCount    int     `json:"cpu_count"`
	CPUUsedPct  float64 `json:"cpu_used_pct"`
	MemTotal    int64   `json:"mem_total"`
	MemUsed     int64   `json:"mem_used"`
	MemCache    int64   `json:"mem_cache"`
	MemTotalMiB int64   `json:"mem_total_mib"`
	MemUsedMiB  int64   `json:"mem_used_mib"`
	DiskUsed    int64   `json:"disk_used"`
	DiskTotal   int64   `json:"disk_total"`
}

// FileEntry is one file written by POST /files.
type FileEntry struct {
	Path string `json:"path"`
	Name string `json:"name"`
	// Type is "file".
	Type string `json:"type"`
}

// Error is the body of a /files or /health error: the HTTP status as
// code, and what went wrong.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}
