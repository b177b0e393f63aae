package webax

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/deskrun/deskrun/agentd/atspi"
)

func val(v any) *accessibility.Value {
	b, _ := json.Marshal(v)
	return &accessibility.Value{Type: "string", Value: b}
}

func prop(name string, v any) *accessibility.Property {
	return &accessibility.Property{Name: accessibility.PropertyName(name), Value: val(v)}
}

// axNode is one node of a synthetic getFullAXTree answer.
func axNode(id string, role int, name string, dom cdp.BackendNodeID, kids []string, props ...*accessibility.Property) *accessibility.Node {
	n := &accessibility.Node{NodeID: accessibility.NodeID(id), ChromeRole: val(role), Name: val(name), BackendDOMNodeID: dom, Properties: props}
	for _, k := range kids {
		n.ChildIDs = append(n.ChildIDs, accessibility.NodeID(k))
	}
	if name != "" {
		src := "contents"
		if role == roleTextField {
			src = "relatedElement"
		}
		n.Name.Sources = []*accessibility.ValueSource{{Type: accessibility.ValueSourceType(src), Value: val(name)}}
	}
	return n
}

// labelPage is `<label>Recipient <input id=r></label><button>Send</button>`
// scrolled down 100 CSS pixels, as the DevTools protocol answers it.
func labelPage() *Page {
	ax := []*accessibility.Node{
		axNode("1", roleRootWebArea, "Label", 1, []string{"2"}, prop("focusable", true)),
		{NodeID: "2", Ignored: true, ChromeRole: val(roleNone), BackendDOMNodeID: 2, ChildIDs: []accessibility.NodeID{"3", "6"}},
		axNode("3", roleLabelText, "", 3, []string{"4", "5"}),
		axNode("4", roleStaticText, "Recipient ", 4, nil),
		axNode("5", roleTextField, "Recipient", 5, []string{"9"}, prop("focusable", true), prop("editable", "plaintext"), prop("multiline", false)),
		axNode("6", roleButton, "Send", 6, []string{"7"}, prop("focusable", true)),
		axNode("7", roleStaticText, "Send", 7, nil),
		axNode("9", roleGenericContainer, "", 9, nil),
	}
	parent := map[string]string{"2": "1", "3": "2", "4": "3", "5": "3", "6": "2", "7": "6", "9": "5"}
	for _, n := range ax {
		n.ParentID = accessibility.NodeID(parent[string(n.NodeID)])
	}
	strs := []string{"#document", "BODY", "LABEL", "#text", "INPUT", "BUTTON", "block", "inline", "inline-block", "start", "center", "id", "r", "Recipient ", "ltr", "frame1", "Ada"}
	si := func(s string) domsnapshot.StringIndex { return domsnapshot.StringIndex(slices.Index(strs, s)) }
	style := func(d, a string) domsnapshot.ArrayOfStrings {
		return domsnapshot.ArrayOfStrings{int64(si(d)), int64(si(a)), int64(si("ltr"))}
	}
	doc := &domsnapshot.DocumentSnapshot{
		FrameID:       si("frame1"),
		ScrollOffsetY: 100,
		Nodes: &domsnapshot.NodeTreeSnapshot{
			ParentIndex:   []int64{-1, 0, 1, 2, 2, 1},
			NodeName:      []domsnapshot.StringIndex{si("#document"), si("BODY"), si("LABEL"), si("#text"), si("INPUT"), si("BUTTON")},
			BackendNodeID: []cdp.BackendNodeID{1, 2, 3, 4, 5, 6},
			Attributes:    []domsnapshot.ArrayOfStrings{nil, nil, nil, nil, {int64(si("id")), int64(si("r"))}, nil},
			InputValue:    &domsnapshot.RareStringData{Index: []int64{4}, Value: []domsnapshot.StringIndex{si("Ada")}},
		},
		Layout: &domsnapshot.LayoutTreeSnapshot{
			NodeIndex: []int64{0, 1, 2, 3, 4, 5},
			Styles:    []domsnapshot.ArrayOfStrings{{}, style("block", "start"), style("inline", "start"), {}, style("inline-block", "start"), style("inline-block", "center")},
			Bounds: []domsnapshot.Rectangle{{0, 0, 1200, 2000}, {8, 108, 1184, 40}, {8, 120.4375, 258.4375, 19},
				{8, 120.4375, 79.4375, 19}, {87.4375, 120.4375, 179, 21}, {8, 150, 50, 21}},
		},
	}
	return &Page{Frames: map[cdp.FrameID][]*accessibility.Node{"frame1": ax}, MainFrame: "frame1",
		Snapshot: &domsnapshot.CaptureSnapshotResult{Documents: []*domsnapshot.DocumentSnapshot{doc}, Strings: strs}, Scale: 1}
}

// TestBuild builds a page as Chromium shows it over AT-SPI: ignored nodes
// left out, a leaf's children left out, roles mapped, text and boxes (the
// scroll applied, an inline label spanning its field) and states.
func TestBuild(t *testing.T) {
	kids := Build(labelPage(), Options{Origin: &atspi.Rect{X: 10, Y: 153, W: 1200, H: 617}, IDPrefix: "web/1/T/", Detail: atspi.DetailXML})
	var got []string
	var walk func(n *atspi.Node, depth int)
	walk = func(n *atspi.Node, depth int) {
		got = append(got, fmt.Sprintf("%s%s %q text=%q box=%v states=%s actions=%v attrs=%v id=%s", strings.Repeat(" ", depth), n.Role, n.Name, n.Text,
			n.Bounds, strings.Join(n.States, ","), n.ActionNames(), n.Attrs, n.ID))
		for _, k := range n.Children {
			walk(k, depth+1)
		}
	}
	for _, k := range kids {
		walk(k, 0)
	}
	want := []string{
		`label "" text="Recipient " box=&{18 173 259 22} states=enabled,sensitive,showing,visible actions=[doDefault showContextMenu] attrs=[{display inline} {tag label} {text-align left}] id=web/1/T/3`,
		` static "Recipient " text="Recipient " box=&{18 173 80 20} states=enabled,sensitive,showing,visible actions=[doDefault showContextMenu] attrs=[{name-from contents}] id=web/1/T/4`,
		` entry "Recipient" text="Ada" box=&{97 173 180 22} states=editable,enabled,focusable,sensitive,showing,single_line,visible,selectable_text actions=[activate showContextMenu] attrs=[{display inline-block} {explicit-name true} {id r} {name-from related-element} {tag input} {text-align left} {text-input-type text} {text-model a1}] id=web/1/T/5`,
		`push button "Send" text="Send" box=&{18 203 50 21} states=enabled,focusable,sensitive,showing,visible actions=[press showContextMenu] attrs=[{display inline-block} {name-from contents} {tag button} {text-align center}] id=web/1/T/6`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// without the document's place on the screen, nothing shows
	for _, k := range Build(labelPage(), Options{}) {
		if k.Bounds != nil || k.Has("showing") {
			t.Errorf("%s %q shows without an origin", k.Role, k.Name)
		}
	}
}

func TestAtkRole(t *testing.T) {
	for _, tt := range []struct {
		role      int
		protected bool
		kids      bool
		want      string
	}{
		{roleButton, false, false, "push button"}, {roleTextField, false, false, "entry"}, {roleTextField, true, false, "password text"},
		{roleComboBoxSelect, false, false, "combo box"}, {roleMenuListPopup, false, false, "menu"}, {roleMenuListOption, false, false, "menu item"},
		{roleRootWebArea, false, false, "document web"}, {roleIframe, false, false, "internal frame"}, {roleGenericContainer, false, false, "section"},
		{roleLabelText, false, false, "label"}, {roleStaticText, false, false, "static"}, {roleListMarker, false, false, "static"},
		{roleListMarker, false, true, "panel"}, {roleHeader, false, false, "landmark"}, {roleSwitch, false, false, "toggle button"},
		{roleAlert, false, false, "notification"}, {roleAlertDialog, false, false, "alert"}, {roleTabPanel, false, false, "scroll pane"},
		{59, false, false, "footnote"}, {9999, false, false, "unknown"},
	} {
		if got := atkRole(tt.role, tt.protected, tt.kids); got != tt.want {
			t.Errorf("atkRole(%d, %v, %v) = %q, want %q", tt.role, tt.protected, tt.kids, got, tt.want)
		}
	}
}
