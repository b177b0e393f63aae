package office

import (
	"fmt"
	"strconv"
)

// PictureBlob returns the image bytes a picture shape shows.
func (d *Deck) PictureBlob(s *Slide, p *Shape) ([]byte, error) {
	rid, ok := p.elem.PathNS(NSP, "blipFill").ChildNS(NSA, "blip").AttrNS(NSR, "embed")
	if !ok {
		return nil, fmt.Errorf("picture without an embedded image")
	}
	rels, err := d.pkg.Rels(s.part)
	if err != nil {
		return nil, err
	}
	for _, r := range rels {
		if r.ID == rid && !r.External {
			return d.pkg.Read(r.Target)
		}
	}
	return nil, fmt.Errorf("picture image %s: no relationship", rid)
}

func (d *Deck) MasterFill(s *Slide) (int, []int, error) {
	if s.layout == "" {
		return 0, nil, nil
	}
	master, err := d.pkg.RelByType(s.layout, RelTypeMaster)
	if err != nil || master == "" {
		return 0, nil, err
	}
	mt, err := d.pkg.XML(master)
	if err != nil {
		return 0, nil, err
	}
	return BgFill(mt.PathNS(NSP, "cSld", "bg"))
}

// BgFill is python-pptx's fill of a background: its MSO_FILL type (1
// solid, 5 no fill, 0 others) and, for a solid sRGB fill, the colour. A
// background without bgPr reads as no fill (python-pptx adds one).
func BgFill(bg *Node) (typ int, rgb []int, err error) {
	bgPr := bg.ChildNS(NSP, "bgPr")
	if bgPr == nil {
		return 5, nil, nil
	}
	for _, c := range bgPr.Children {
		if c.Space != NSA {
			continue
		}
		switch c.Name {
		case "noFill":
			return 5, nil, nil
		case "solidFill":
			clr := c.ChildNS(NSA, "srgbClr")
			v, _ := clr.AttrNS("", "val")
			if clr == nil || len(v) != 6 {
				return 1, nil, fmt.Errorf("solid background without an sRGB colour")
			}
			n, err := strconv.ParseUint(v, 16, 32)
			if err != nil {
				return 1, nil, fmt.Errorf("background colour %q: %w", v, err)
			}
			return 1, []int{int(n >> 16), int(n >> 8 & 0xff), int(n & 0xff)}, nil
		case "gradFill", "blipFill", "pattFill", "grpFill":
			return 0, nil, nil
		}
	}
	return 0, nil, nil
}
