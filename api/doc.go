// Package api is the ground floor of deskrun: the public contract v1,
// shared by the host server (deskrun serve), the in-sandbox daemon
// (agentd), the runner and every client. It holds the JSON shapes of
// core actions, sessions, screenshots, exec, files, shells, runs and tool
// results, the error classes and their HTTP statuses, and the OpenAPI
// document of the host API ([OpenAPI]). Tool definitions are its
// subpackage api/tool; the thin Go clients are api/client (the host API)
// and agentd/client (agentd's API), each importing only the contract.
//
// It imports nothing else of deskrun and has no knowledge of servers or
// X11; it only describes and validates what goes over the wire.
package api
