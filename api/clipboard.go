package api

import "fmt"

// The clipboard calls (GET and PUT /v1/clipboard of agentd,
// /v1/sessions/{id}/clipboard of the host API) take two query parameters:
// selection, the X selection ("clipboard", the default, or "primary",
// the text last selected with the mouse), and type, the form of the
// content ("text", the default, UTF-8; or "image/png"). A PUT's body is
// the content; its Content-Type image/png stands for type=image/png.
const (
	SelectionClipboard = "clipboard"
	SelectionPrimary   = "primary"

	ClipboardText = "text"
	ClipboardPNG  = "image/png"
)

// MaxClipboardText and MaxClipboardImage bound what a clipboard PUT
// accepts: text in UTF-8, and a PNG image.
const (
	MaxClipboardText  = 1 << 20
	MaxClipboardImage = 16 << 20
)

// CheckClipboard validates the selection and type parameters of a
// clipboard call (empty means the default) and returns them filled in;
// the error names the parameter.
func CheckClipboard(selection, typ string) (string, string, error) {
	switch selection {
	case "":
		selection = SelectionClipboard
	case SelectionClipboard, SelectionPrimary:
	default:
		return "", "", fmt.Errorf("selection: %q is not clipboard or primary", selection)
	}
	switch typ {
	case "":
		typ = ClipboardText
	case ClipboardText, ClipboardPNG:
	default:
		return "", "", fmt.Errorf("type: %q is not text or image/png", typ)
	}
	return selection, typ, nil
}
