package dialect

import (
	"slices"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/api/tool"
)

// TestDefinitions validates every built-in tool definition of every
// dialect against the rules of the tool-definition specification,
// including that each example's params satisfy the input schema, and
// checks that built-in tools fill every recommended field.
func TestDefinitions(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			defs, ok := Definitions(name)
			if !ok || len(defs) < 2 {
				t.Fatalf("Definitions(%q): got %d tools, %v", name, len(defs), ok)
			}
			if err := tool.ValidateSet(defs, nil); err != nil {
				t.Errorf("%v", err)
			}
			for _, d := range defs {
				if d.Name == infoToolName {
					continue // dialect-neutral: it has no related tools of its own
				}
				if err := tool.Complete(d); err != nil {
					t.Errorf("%v", err)
				}
				if strings.Contains(d.Markdown(), "{coord_") {
					t.Errorf("%s: unfilled placeholder", d.Name)
				}
			}
			if last := defs[len(defs)-1].Name; last != infoToolName {
				t.Errorf("last tool: got %s, want %s", last, infoToolName)
			}
		})
	}
}

func TestOSWorldToolNames(t *testing.T) {
	want := []string{
		"desktop_mouse_move", "desktop_mouse_click", "desktop_mouse_button", "desktop_mouse_right_click",
		"desktop_mouse_double_click", "desktop_mouse_drag", "desktop_scroll", "desktop_type",
		"desktop_key_press", "desktop_key_hold", "desktop_hotkey", "desktop_control",
	}
	var got []string
	for _, d := range OSWorld.Tools() {
		if d.Name != infoToolName {
			got = append(got, d.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("osworld tools:\ngot  %v\nwant %v", got, want)
	}
}

func TestAnthropicModes(t *testing.T) {
	px, _ := Find("anthropic", "left_click")
	norm, _ := Find("anthropic_normalized", "left_click")
	if d := px.InputSchema.Properties["coordinate"].Description; !strings.Contains(d, "most recent screenshot image") {
		t.Errorf("pixels coordinate description: %q", d)
	}
	if d := norm.InputSchema.Properties["coordinate"].Description; !strings.Contains(d, "percentage of screen width") {
		t.Errorf("normalized coordinate description: %q", d)
	}
	for _, n := range []string{"computer_batch", "bash", "str_replace_based_edit_tool", "zoom", "hold_key", "cursor_position"} {
		if _, ok := Find("anthropic", n); !ok {
			t.Errorf("anthropic lacks %s", n)
		}
	}
}

// TestAnthropicMCPToolList checks the anthropic dialects against all 38
// tools of seeds/003's buildComputerUseTools (with its win32 tools and
// teach mode), plus the companion bash and text editor tools, the API's
// one-tool computer, and get_tool_info.
func TestAnthropicMCPToolList(t *testing.T) {
	seed := []string{
		"request_access", "screenshot", "zoom", "left_click", "double_click", "triple_click",
		"right_click", "middle_click", "type", "key", "scroll", "left_click_drag", "mouse_move",
		"open_application", "switch_display", "list_granted_applications", "read_clipboard",
		"write_clipboard", "wait", "cursor_position", "hold_key", "left_mouse_down", "left_mouse_up",
		"computer_batch", "click_element", "type_into_element",
		// win32 in the seed; through EWMH here
		"window_management", "open_terminal", "bind_window", "activate_window", "prompt_respond",
		"status_indicator", "virtual_keyboard", "virtual_mouse", "mouse_wheel",
		// teach mode: refused, no one watches a sandbox
		"request_teach_access", "teach_step", "teach_batch",
	}
	if len(seed) != 38 {
		t.Fatalf("the seed has 38 tools, the list here %d", len(seed))
	}
	want := append(slices.Sorted(slices.Values(append(seed, "computer", "bash", "str_replace_based_edit_tool"))), infoToolName)
	for _, dn := range []string{"anthropic", "anthropic_normalized"} {
		var got []string
		for _, d := range toolsOf(dn) {
			if d.Name != infoToolName {
				got = append(got, d.Name)
			}
		}
		got = append(slices.Sorted(slices.Values(got)), infoToolName)
		if !slices.Equal(got, want) {
			t.Errorf("%s tools:\ngot  %v\nwant %v", dn, got, want)
		}
	}
	batch, _ := Find("anthropic", "computer_batch")
	var actions []string
	for _, v := range batch.InputSchema.Properties["actions"].Items.Properties["action"].Enum {
		actions = append(actions, v.(string))
	}
	// BATCH_ACTION_ITEM_SCHEMA's enum, in the seed's order.
	if want := []string{"key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click",
		"double_click", "triple_click", "scroll", "hold_key", "screenshot", "cursor_position", "left_mouse_down",
		"left_mouse_up", "wait"}; !slices.Equal(actions, want) {
		t.Errorf("computer_batch actions:\ngot  %v\nwant %v", actions, want)
	}
}

func TestByNameAndLookup(t *testing.T) {
	for _, n := range Names() {
		d, ok := ByName(n)
		if !ok || d.Name() != n {
			t.Errorf("ByName(%q): got %v, %v", n, d, ok)
		}
	}
	if _, ok := ByName("nope"); ok {
		t.Error("ByName(nope) found a dialect")
	}
	if d, ok := Lookup("desktop_hotkey"); !ok || d.Name != "desktop_hotkey" {
		t.Errorf("Lookup(desktop_hotkey): got %v, %v", d.Name, ok)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found a tool")
	}
}

func BenchmarkTools(b *testing.B) {
	for b.Loop() {
		_ = Anthropic.Tools()
	}
}
