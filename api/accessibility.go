package api

// Accessibility formats of GET /v1/accessibility.
const (
	A11yXML  = "xml"  // OSWorld's XML, the body as application/xml
	A11yList = "list" // the indexed interactable elements (Accessibility.Elements and .List)
	A11yJSON = "json" // the whole tree (Accessibility.Tree)
)

// Element is one interactable accessible object. Index counts from 1 and
// matches the number drawn by set-of-marks; ID names the object while its
// application runs.
type Element struct {
	Index  int      `json:"index"`
	ID     string   `json:"id"`
	Role   string   `json:"role"`
	Name   string   `json:"name"`
	Value  string   `json:"value,omitempty"`
	States []string `json:"states,omitempty"`
	Bounds Box      `json:"bounds"`
	App    string   `json:"app,omitempty"`
	// Actions names the element's actions ("press", "jump", "activate"),
	// which tell what it can do when chosen by name.
	Actions []string `json:"actions,omitempty"`
}

// Box is an element's box in screen pixels: top-left and size.
type Box struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Accessibility is the answer of GET /v1/accessibility in the list and json
// formats.
type Accessibility struct {
	// Elements and List (one line per element) for format list.
	Elements []Element `json:"elements,omitempty"`
	List     string    `json:"list,omitempty"`
	// Tree is the desktop's tree for format json.
	Tree any `json:"tree,omitempty"`
	// Partial says an application did not answer in time; its subtree is
	// missing or cut.
	Partial bool   `json:"partial,omitempty"`
	Took    string `json:"took,omitempty"`
}

// SetOfMarks is the answer of GET /v1/som: the screenshot with every
// interactable element boxed and numbered, and the elements.
type SetOfMarks struct {
	Image    []byte    `json:"image"` // PNG
	Width    int       `json:"width"`
	Height   int       `json:"height"`
	Scale    float64   `json:"scale"` // image pixels per screen pixel
	Screen   Screen    `json:"screen"`
	Elements []Element `json:"elements"`
	List     string    `json:"list"`
	Partial  bool      `json:"partial,omitempty"`
}

// App is an application on the accessibility bus.
type App struct {
	Name string `json:"name"`
	PID  int    `json:"pid,omitempty"`
	ID   string `json:"id"`
}

// Element actions of POST /v1/accessibility/act.
const (
	ElementClick    = "click"     // the element's default action (click, press, activate, toggle)
	ElementFocus    = "focus"     // give it the keyboard focus
	ElementSetValue = "set_value" // an option's label, a number, or text
	ElementSetText  = "set_text"  // replace its text
	ElementDo       = "do"        // the action named Name
)

// ElementAction is the body of POST /v1/accessibility/act.
type ElementAction struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Value  string `json:"value,omitempty"`
	Name   string `json:"name,omitempty"`
}

// A11yNamespaces are the namespaces of OSWorld's accessibility XML for
// Linux, in the order its desktop-frame root declares them: agentd writes
// them, the graders' XPath and OSWorld's /accessibility route read them.
var A11yNamespaces = []struct{ Prefix, URI string }{
	{"st", "https://accessibility.ubuntu.example.org/ns/state"},
	{"attr", "https://accessibility.ubuntu.example.org/ns/attributes"},
	{"cp", "https://accessibility.ubuntu.example.org/ns/component"},
	{"doc", "https://accessibility.ubuntu.example.org/ns/document"},
	{"docattr", "https://accessibility.ubuntu.example.org/ns/document/attributes"},
	{"txt", "https://accessibility.ubuntu.example.org/ns/text"},
	{"val", "https://accessibility.ubuntu.example.org/ns/value"},
	{"act", "https://accessibility.ubuntu.example.org/ns/action"},
}
