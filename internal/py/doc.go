// Package py gives Go values what CPython does and Go does not, where
// deskrun must reproduce a Python program's answers: OSWorld's graders
// and guest server, and the text its dialect prints.
//
// Values are the JSON data model as task files and getters give them:
// nil, bool, string, json.Number (which keeps whether the source wrote
// an integer or a float, as Python does), []any and map[string]any, and
// float64 or int where Go code made them. For them the package gives
// Python's == ([Equal]), truthiness ([Truthy]), "in" ([Contains]),
// ordering ([Compare]), str() and repr() ([Str], [Repr]) and float repr
// ([Float]: 0.1 is 0.1, 1e16 is 1e+16), str.lower/strip/splitlines,
// JSON and YAML decoding into that model ([DecodeJSON], [DecodeYAML]),
// re patterns ([Compile]: RE2 when it can, a bounded backtracking engine
// for lookaround and backreferences), shlex.split ([ShlexSplit]),
// difflib's SequenceMatcher.ratio ([SequenceRatio]), uuid.uuid5
// ([UUID5URL]) and int() and float() of a string ([ParseInt],
// [ParseFloat]).
//
// It imports nothing of deskrun, so every floor may use it: agentd (the
// accessibility tree's float text), the runner's dialects and the task
// port, and the OSWorld routes of the server. It lives in the module's
// internal/ because its API is shaped by those callers, not for others.
package py
