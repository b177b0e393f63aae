package webax

// Chromium's internal roles (ax::mojom::Role, ui/accessibility/ax_enums.mojom;
// the numbers are stable: the enum is [Stable, Extensible] and new roles
// take new numbers) as the DevTools protocol gives them in AXNode.chromeRole.
const (
	roleNone                      = 0
	roleAbbr                      = 1
	roleAlert                     = 2
	roleAlertDialog               = 3
	roleApplication               = 4
	roleArticle                   = 5
	roleAudio                     = 6
	roleBanner                    = 7
	roleBlockquote                = 8
	roleButton                    = 9
	roleCanvas                    = 10
	roleCaption                   = 11
	roleCaret                     = 12
	roleCell                      = 13
	roleCheckBox                  = 14
	roleClient                    = 15
	roleCode                      = 16
	roleColorWell                 = 17
	roleColumn                    = 18
	roleColumnHeader              = 19
	roleComboBoxGrouping          = 20
	roleComboBoxMenuButton        = 21
	roleComplementary             = 22
	roleComment                   = 23
	roleContentDeletion           = 24
	roleContentInsertion          = 25
	roleContentInfo               = 26
	roleDate                      = 27
	roleDateTime                  = 28
	roleDefinition                = 29
	roleDescriptionList           = 30
	roleDescriptionListDetail     = 31
	roleDescriptionListTerm       = 32
	roleDesktop                   = 33
	roleDetails                   = 34
	roleDialog                    = 35
	roleDirectory                 = 36
	roleDisclosureTriangle        = 37
	roleDocCover                  = 49
	roleDocument                  = 79
	roleEmbeddedObject            = 80
	roleEmphasis                  = 81
	roleFeed                      = 82
	roleFigcaption                = 83
	roleFigure                    = 84
	roleFooter                    = 85
	roleSectionFooter             = 86
	roleForm                      = 87
	roleGenericContainer          = 88
	roleGraphicsDocument          = 89
	roleGraphicsObject            = 90
	roleGraphicsSymbol            = 91
	roleGrid                      = 92
	roleGroup                     = 93
	roleHeader                    = 94
	roleSectionHeader             = 95
	roleHeading                   = 96
	roleIframe                    = 97
	roleIframePresentational      = 98
	roleImage                     = 99
	roleImeCandidate              = 100
	roleInlineTextBox             = 101
	roleInputTime                 = 102
	roleKeyboard                  = 103
	roleLabelText                 = 104
	roleLayoutTable               = 105
	roleLayoutTableCell           = 106
	roleLayoutTableRow            = 107
	roleLegend                    = 108
	roleLineBreak                 = 109
	roleLink                      = 110
	roleList                      = 111
	roleListBox                   = 112
	roleListBoxOption             = 113
	roleListGrid                  = 114
	roleListItem                  = 115
	roleListMarker                = 116
	roleLog                       = 117
	roleMain                      = 118
	roleMark                      = 119
	roleMarquee                   = 120
	roleMath                      = 121
	roleMenu                      = 122
	roleMenuBar                   = 123
	roleMenuItem                  = 124
	roleMenuItemCheckBox          = 125
	roleMenuItemRadio             = 126
	roleMenuListOption            = 127
	roleMenuListPopup             = 128
	roleMeter                     = 129
	roleNavigation                = 130
	roleNote                      = 131
	rolePane                      = 132
	roleParagraph                 = 133
	rolePdfActionableHighlight    = 134
	rolePdfRoot                   = 135
	rolePluginObject              = 136
	rolePopUpButton               = 137
	roleProgressIndicator         = 140
	roleRadioButton               = 141
	roleRadioGroup                = 142
	roleRegion                    = 143
	roleRootWebArea               = 144
	roleRow                       = 145
	roleRowGroup                  = 146
	roleRowHeader                 = 147
	roleRuby                      = 148
	roleRubyAnnotation            = 149
	roleScrollBar                 = 150
	roleScrollView                = 151
	roleSearch                    = 152
	roleSearchBox                 = 153
	roleSection                   = 154
	roleSlider                    = 155
	roleSpinButton                = 156
	roleSplitter                  = 157
	roleStaticText                = 158
	roleStatus                    = 159
	roleStrong                    = 160
	roleSuggestion                = 161
	roleSvgRoot                   = 162
	roleSwitch                    = 163
	roleTab                       = 164
	roleTabList                   = 165
	roleTabPanel                  = 166
	roleTable                     = 167
	roleTableHeaderContainer      = 168
	roleTerm                      = 169
	roleTextField                 = 170
	roleTextFieldWithComboBox     = 171
	roleTime                      = 172
	roleTimer                     = 173
	roleTitleBar                  = 174
	roleToggleButton              = 175
	roleToolbar                   = 176
	roleTooltip                   = 177
	roleTree                      = 178
	roleTreeGrid                  = 179
	roleTreeItem                  = 180
	roleUnknown                   = 181
	roleVideo                     = 182
	roleWebView                   = 183
	roleWindow                    = 184
	roleSubscript                 = 185
	roleSuperscript               = 186
	roleMathMLMath                = 187
	roleComboBoxSelect            = 209
	roleDisclosureTriangleGrouped = 210
	roleSectionWithoutName        = 211
	roleGridCell                  = 212
)

// atkRoles is the AT-SPI role name (what AT-SPI's GetRoleName answers, and
// OSWorld's tags spell with dashes) each internal role has on Linux: the
// mapping of Chromium's AXPlatformNodeAuraLinux::GetAtkRole(), written
// down from what it returns (the DPub, MathML and ruby roles are mapped
// where they occur in pages). Roles that depend on more than the role are
// settled in atkRole.
var atkRoles = map[int]string{
	roleAlert: "notification", roleAlertDialog: "alert", roleComment: "section", roleSuggestion: "section",
	roleApplication: "embedded", roleArticle: "article", roleAudio: "audio", roleBanner: "landmark", roleHeader: "landmark",
	roleBlockquote: "block quote", roleCaret: "unknown", roleButton: "push button", roleCanvas: "canvas",
	roleCaption: "caption", roleCell: "table cell", roleCheckBox: "check box", roleSwitch: "toggle button",
	roleColorWell: "push button", roleColumn: "unknown", roleColumnHeader: "column header",
	roleComboBoxGrouping: "combo box", roleComboBoxMenuButton: "combo box", roleComboBoxSelect: "combo box",
	roleComplementary: "landmark", roleContentDeletion: "content deletion", roleContentInsertion: "content insertion",
	roleContentInfo: "landmark", roleFooter: "landmark", roleDate: "date editor", roleDateTime: "date editor",
	roleDefinition: "description value", roleDescriptionList: "description list", roleDetails: "panel",
	roleDialog: "dialog", roleDisclosureTriangle: "toggle button", roleDisclosureTriangleGrouped: "toggle button",
	roleDocCover: "image", roleDocument: "document frame", roleEmbeddedObject: "embedded", roleForm: "form",
	roleFigure: "panel", roleFeed: "panel", roleGenericContainer: "section", roleRuby: "section",
	roleSectionWithoutName: "section", roleGraphicsDocument: "document frame", roleGraphicsObject: "panel",
	roleGraphicsSymbol: "image", roleGrid: "table", roleGridCell: "table cell", roleGroup: "panel",
	roleHeading: "heading", roleIframe: "internal frame", roleIframePresentational: "internal frame",
	roleImage: "image", roleInlineTextBox: "static", roleInputTime: "date editor", roleLabelText: "label",
	roleLegend: "label", roleLayoutTable: "section", roleLayoutTableCell: "section", roleLayoutTableRow: "section",
	roleLineBreak: "static", roleLink: "link", roleList: "list", roleListBox: "list box",
	roleListBoxOption: "list item", roleListGrid: "table", roleListItem: "list item", roleLog: "log",
	roleMain: "landmark", roleMark: "static", roleMath: "math", roleMathMLMath: "math", roleMarquee: "marquee",
	roleMenu: "menu", roleMenuBar: "menu bar", roleMenuItem: "menu item", roleMenuItemCheckBox: "check menu item",
	roleMenuItemRadio: "radio menu item", roleMenuListPopup: "menu", roleMenuListOption: "menu item",
	roleMeter: "level bar", roleNavigation: "landmark", roleNote: "comment", rolePane: "panel", roleScrollView: "panel",
	roleParagraph: "paragraph", rolePdfActionableHighlight: "push button", rolePdfRoot: "document frame",
	rolePluginObject: "embedded", rolePopUpButton: "push button", roleProgressIndicator: "progress bar",
	roleRadioButton: "radio button", roleRadioGroup: "panel", roleRegion: "landmark", roleRootWebArea: "document web",
	roleRow: "table row", roleRowGroup: "panel", roleRowHeader: "row header", roleRubyAnnotation: "static",
	roleSection: "section", roleSectionFooter: "footer", roleSectionHeader: "header", roleScrollBar: "scroll bar",
	roleSearch: "landmark", roleSlider: "slider", roleSpinButton: "spin button", roleSplitter: "separator",
	roleStaticText: "static", roleStatus: "statusbar", roleSubscript: "subscript", roleSuperscript: "superscript",
	roleSvgRoot: "document frame", roleTab: "page tab", roleTable: "table", roleTableHeaderContainer: "panel",
	roleTabList: "page tab list", roleTabPanel: "scroll pane", roleTerm: "description term", roleTitleBar: "title bar",
	roleTextField: "entry", roleSearchBox: "entry", roleTextFieldWithComboBox: "combo box",
	roleAbbr: "static", roleCode: "static", roleEmphasis: "static", roleStrong: "static", roleTime: "static",
	roleTimer: "timer", roleToggleButton: "toggle button", roleToolbar: "tool bar", roleTooltip: "tool tip",
	roleTree: "tree", roleTreeItem: "tree item", roleTreeGrid: "tree table", roleVideo: "video", roleWindow: "frame",
	roleClient: "panel", roleDesktop: "panel", roleWebView: "panel", roleFigcaption: "caption", roleUnknown: "unknown",
}

// atkRole is the AT-SPI role name of an internal role; protected text
// fields are password text, a list marker without children is static
// text, and the DPub roles take the role of their kind.
func atkRole(role int, protected, hasChildren bool) string {
	switch {
	case (role == roleTextField || role == roleSearchBox) && protected:
		return "password text"
	case role == roleListMarker:
		if hasChildren {
			return "panel"
		}
		return "static"
	case role >= 38 && role <= 78: // DPub
		switch role {
		case 42, 45, 62, 65: // back link, biblio ref, gloss ref, note ref
			return "link"
		case 43, 53: // biblio entry, endnote
			return "list item"
		case 66, 77: // notice, tip
			return "comment"
		case 59: // footnote
			return "footnote"
		case 67: // page break
			return "separator"
		case 68:
			return "footer"
		case 69:
			return "header"
		case 76: // subtitle
			return "heading"
		case 38, 47, 50, 52, 55, 58, 74, 75: // abstract, colophon, credit, dedication, epigraph, example, pullquote, qna
			return "section"
		case roleDocCover:
			return "image"
		}
		return "landmark"
	case role >= 188 && role <= 208: // MathML parts
		switch role {
		case 188:
			return "math fraction"
		case 196, 198:
			return "math root"
		case 189, 192, 193, 199, 206:
			return "static"
		case 203:
			return "table"
		case 204:
			return "table cell"
		case 205:
			return "table row"
		}
		return "section"
	}
	if r, ok := atkRoles[role]; ok {
		return r
	}
	return "unknown"
}

// leafRoles are the roles whose subtree AT-SPI does not show (their
// children are presentational, or the control is atomic): the text of
// the subtree becomes the object's text.
var leafRoles = map[int]bool{
	roleButton: true, roleCheckBox: true, roleImage: true, roleMenuItemCheckBox: true, roleMenuItemRadio: true,
	roleMenuListOption: true, roleMeter: true, roleProgressIndicator: true, roleRadioButton: true, roleScrollBar: true,
	roleSlider: true, roleSplitter: true, roleSwitch: true, roleToggleButton: true, rolePopUpButton: true,
	roleListBoxOption: true, roleDocCover: true, roleGraphicsSymbol: true, roleTextField: true, roleSearchBox: true,
	roleTextFieldWithComboBox: true, roleSpinButton: true, roleStaticText: true, roleLineBreak: true,
	roleInlineTextBox: true, roleColorWell: true, roleTab: true, roleListMarker: true, roleMenuItem: true,
}

// textRoles are embedded in their parent's text as text (the rest are
// objects, U+FFFC, which the tree leaves out).
var textRoles = map[int]bool{roleStaticText: true, roleLineBreak: true, roleInlineTextBox: true}

// rangeRoles have AT-SPI's Value interface.
var rangeRoles = map[int]bool{roleSlider: true, roleSpinButton: true, roleProgressIndicator: true, roleMeter: true,
	roleScrollBar: true, roleSplitter: true}

// selectionRoles have AT-SPI's Selection interface.
var selectionRoles = map[int]bool{roleListBox: true, roleMenuListPopup: true, roleTabList: true, roleTree: true,
	roleGrid: true, roleTreeGrid: true, roleListGrid: true, roleMenu: true, roleMenuBar: true}

// cellRoles count in a table's table-cell-index.
var cellRoles = map[int]bool{roleCell: true, roleColumnHeader: true, roleRowHeader: true, roleGridCell: true}

// textFieldRoles are the editable text controls.
var textFieldRoles = map[int]bool{roleTextField: true, roleSearchBox: true, roleTextFieldWithComboBox: true}

// landmarkXMLRoles are the implicit ARIA roles AT-SPI's xml-roles
// attribute names.
var landmarkXMLRoles = map[int]string{roleForm: "form", roleNavigation: "navigation", roleMain: "main",
	roleHeader: "banner", roleFooter: "contentinfo",
	roleBanner: "banner", roleContentInfo: "contentinfo", roleComplementary: "complementary", roleRegion: "region",
	roleSearch: "search"}
