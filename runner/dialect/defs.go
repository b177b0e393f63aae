package dialect

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/deskrun/deskrun/api/tool"
	"gopkg.in/yaml.v3"
)

// The tool definitions live in tools/<dialect>.yaml, one list of OpenAkita
// definitions per dialect, plus tools/common.yaml for get_tool_info.
//
//go:embed tools/*.yaml
var toolFiles embed.FS

// infoToolName is the level-2 tool every dialect has.
const infoToolName = "get_tool_info"

// builtinTools holds every dialect's definitions, get_tool_info last,
// parsed once on first use: an immutable table built lazily, since
// parsing takes milliseconds and calls look their schemas up.
var builtinTools = sync.OnceValue(func() map[string][]tool.Definition {
	all := map[string][]tool.Definition{}
	common := parseTools("common", nil)
	for _, f := range []string{"osworld", "pyautogui", "openai", "hermes", "sandbox"} {
		all[f] = append(parseTools(f, nil), common...)
	}
	for _, sp := range []space{pixelSpace, normalizedSpace} {
		a := anthropic{space: sp}
		all[a.Name()] = append(parseTools("anthropic", a.replacer()), common...)
	}
	return all
})

// toolsOf returns the shared definitions of a dialect; callers must not
// modify them.
func toolsOf(dialect string) []tool.Definition { return builtinTools()[dialect] }

// The files are part of the program, checked by the tests, so a broken
// one is a bug and parseTools panics. repl, if not nil, fills
// placeholders such as {coord_x}.

func parseTools(file string, repl *strings.Replacer) []tool.Definition {
	data, err := toolFiles.ReadFile("tools/" + file + ".yaml")
	if err != nil {
		panic(fmt.Sprintf("dialect: read tool definitions %s: %v", file, err))
	}
	text := string(data)
	if repl != nil {
		text = repl.Replace(text)
	}
	var raw any
	if err := yaml.Unmarshal([]byte(text), &raw); err != nil {
		panic(fmt.Sprintf("dialect: parse tool definitions %s: %v", file, err))
	}
	js, err := json.Marshal(raw)
	if err != nil {
		panic(fmt.Sprintf("dialect: convert tool definitions %s: %v", file, err))
	}
	var defs []tool.Definition
	if err := json.Unmarshal(js, &defs); err != nil {
		panic(fmt.Sprintf("dialect: decode tool definitions %s: %v", file, err))
	}
	return defs
}

// findTool returns the definition of name among defs.
func findTool(defs []tool.Definition, name string) (tool.Definition, bool) {
	i := slices.IndexFunc(defs, func(d tool.Definition) bool { return d.Name == name })
	if i < 0 {
		return tool.Definition{}, false
	}
	return defs[i], true
}

// checkArgs validates args against the input schema of the tool name of
// dl and returns them decoded. An unknown tool or arguments the schema
// refuses give a tool error naming the problem.
func checkArgs(dl Dialect, name string, args json.RawMessage) (map[string]any, error) {
	def, ok := findTool(toolsOf(dl.Name()), name)
	if !ok {
		return nil, toolErrorf("unknown tool %q in dialect %s", name, dl.Name())
	}
	v, err := tool.DecodeValue(args)
	if err != nil {
		return nil, toolErrorf("%s: %v", name, err)
	}
	if err := def.InputSchema.Validate(v); err != nil {
		return nil, toolErrorf("%s: invalid arguments: %v", name, err)
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// toolInfo answers get_tool_info: the level-2 view of one of dl's tools.
func toolInfo(dl Dialect, args json.RawMessage) Result {
	m, err := checkArgs(dl, infoToolName, args)
	if err != nil {
		return errorResult(errMessage(err))
	}
	name, _ := m["tool_name"].(string)
	def, ok := findTool(toolsOf(dl.Name()), name)
	if !ok {
		names := make([]string, 0)
		for _, d := range toolsOf(dl.Name()) {
			names = append(names, d.Name)
		}
		return errorResult(fmt.Sprintf("no tool %q in dialect %s; its tools are %s", name, dl.Name(), strings.Join(names, ", ")))
	}
	return Result{Content: []Part{{Type: "text", Text: def.Markdown()}}, Structured: def}
}
