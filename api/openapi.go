package api

import _ "embed" // the OpenAPI document

// OpenAPI is the OpenAPI 3.1 document of the host API (openapi.yaml):
// every route of deskrun serve, its parameters, bodies and answers.
//
//go:embed openapi.yaml
var OpenAPI []byte
