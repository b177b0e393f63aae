// Package server is the top floor of deskrun on the host: the REST server
// of the public contract v1 (sessions, screenshots, input, cursor, exec,
// files, windows, tool definitions and tool calls in every dialect, task
// suite runs kept by a [Runs], and GET /metrics from a [Metrics]) on echo,
// with bearer-token authentication. The JSON types and error classes are
// the contract's (package api); its Go client is package api/client; MCP
// is served by server/mcp and the metrics are server/metrics'.
package server
