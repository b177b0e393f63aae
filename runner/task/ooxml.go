package task

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// OOXML packages (pptx here) are read with archive/zip and encoding/xml
// into a small element tree: the metrics look at a few dozen elements and
// attributes, which a tree walks more plainly than struct tags, and the
// standard library needs no dependency. Every read is bounded (part size,
// element depth and count) and checks the context, so a corrupt or hostile
// file is an error, never a hang or a panic.

const (
	nsA   = "http://schemas.openxmlformats.org/drawingml/2006/main"
	nsP   = "http://schemas.openxmlformats.org/presentationml/2006/main"
	nsR   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsRel = "http://schemas.openxmlformats.org/package/2006/relationships"

	maxPartSize     = 64 << 20  // decompressed bytes of one part
	maxPackageRead  = 256 << 20 // decompressed bytes read from one package
	maxXMLDepth     = 256
	maxXMLElements  = 2_000_000
	ctxCheckEvery   = 4096
	relTypeSlide    = "/slide"
	relTypeLayout   = "/slideLayout"
	relTypeMaster   = "/slideMaster"
	relTypeNotes    = "/notesSlide"
	relTypeOfficeDc = "/officeDocument"
)

// xnode is one XML element: its name, attributes, children and the
// character data directly inside it.
type xnode struct {
	name     xml.Name
	attr     []xml.Attr
	children []*xnode
	text     string
}

// attrValue returns the attribute local (in no namespace, or in ns when ns
// is given) and whether it is there.
func (n *xnode) attrValue(ns, local string) (string, bool) {
	if n == nil {
		return "", false
	}
	for _, a := range n.attr {
		if a.Name.Local == local && a.Name.Space == ns {
			return a.Value, true
		}
	}
	return "", false
}

// child returns the first child element ns:local, or nil.
func (n *xnode) child(ns, local string) *xnode {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name.Local == local && c.name.Space == ns {
			return c
		}
	}
	return nil
}

// path follows first children by local names in namespace ns.
func (n *xnode) path(ns string, locals ...string) *xnode {
	for _, l := range locals {
		n = n.child(ns, l)
	}
	return n
}

// find returns the first descendant ns:local in document order (as
// ElementTree's find(".//x")), or nil.
func (n *xnode) find(ns, local string) *xnode {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name.Local == local && c.name.Space == ns {
			return c
		}
		if f := c.find(ns, local); f != nil {
			return f
		}
	}
	return nil
}

// findAll appends every descendant ns:local in document order.
func (n *xnode) findAll(ns, local string, out []*xnode) []*xnode {
	if n == nil {
		return out
	}
	for _, c := range n.children {
		if c.name.Local == local && c.name.Space == ns {
			out = append(out, c)
		}
		out = c.findAll(ns, local, out)
	}
	return out
}

// parseXML builds the element tree of data.
func parseXML(ctx context.Context, data []byte) (*xnode, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var stack []*xnode
	var root *xnode
	count := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		count++
		if count%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxXMLDepth {
				return nil, errors.New("elements nested too deep")
			}
			if count > maxXMLElements {
				return nil, errors.New("too many elements")
			}
			n := &xnode{name: t.Name, attr: append([]xml.Attr(nil), t.Attr...)}
			if len(stack) == 0 {
				if root != nil {
					return nil, errors.New("more than one root element")
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	return root, nil
}

// opcPackage is an opened OOXML package (a zip of parts).
type opcPackage struct {
	ctx   context.Context
	files map[string]*zip.File
	trees map[string]*xnode
	read  int64 // decompressed bytes read so far
}

func openPackage(ctx context.Context, data []byte) (*opcPackage, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not an OOXML package: %w", err)
	}
	p := &opcPackage{ctx: ctx, files: map[string]*zip.File{}, trees: map[string]*xnode{}}
	for _, f := range zr.File {
		p.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	return p, nil
}

// part returns the bytes of the part name (no leading slash).
func (p *opcPackage) part(name string) ([]byte, error) {
	f, ok := p.files[name]
	if !ok {
		return nil, fmt.Errorf("part %s: not in the package", name)
	}
	if f.UncompressedSize64 > maxPartSize {
		return nil, fmt.Errorf("part %s: larger than %d bytes", name, maxPartSize)
	}
	if p.read+int64(f.UncompressedSize64) > maxPackageRead {
		return nil, fmt.Errorf("part %s: the package holds more than %d bytes", name, maxPackageRead)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	defer rc.Close()
	// Read in chunks, checking the deadline: a part's declared size
	// bounds what zip lets us read, and it may be large.
	data := make([]byte, 0, min(f.UncompressedSize64, 1<<20))
	buf := make([]byte, 256<<10)
	for {
		if err := p.ctx.Err(); err != nil {
			return nil, fmt.Errorf("part %s: %w", name, err)
		}
		n, err := rc.Read(buf)
		data = append(data, buf[:n]...)
		if len(data) > maxPartSize {
			return nil, fmt.Errorf("part %s: larger than %d bytes", name, maxPartSize)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("part %s: %w", name, err)
		}
	}
	p.read += int64(len(data))
	return data, nil
}

// tree returns the parsed part name, parsing it once.
func (p *opcPackage) tree(name string) (*xnode, error) {
	if t, ok := p.trees[name]; ok {
		return t, nil
	}
	data, err := p.part(name)
	if err != nil {
		return nil, err
	}
	t, err := parseXML(p.ctx, data)
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	p.trees[name] = t
	return t, nil
}

// relationship is one entry of a part's .rels.
type relationship struct {
	id, typ, target string
}

// rels returns the relationships of part name, targets resolved to part
// names; a part without a .rels has none.
func (p *opcPackage) rels(name string) ([]relationship, error) {
	dir, base := path.Split(name)
	relName := dir + "_rels/" + base + ".rels"
	if _, ok := p.files[relName]; !ok {
		return nil, nil
	}
	t, err := p.tree(relName)
	if err != nil {
		return nil, err
	}
	var out []relationship
	for _, c := range t.children {
		if c.name.Local != "Relationship" {
			continue
		}
		id, _ := c.attrValue("", "Id")
		typ, _ := c.attrValue("", "Type")
		target, _ := c.attrValue("", "TargetMode")
		if target == "External" {
			continue
		}
		target, _ = c.attrValue("", "Target")
		var resolved string
		if strings.HasPrefix(target, "/") {
			resolved = strings.TrimPrefix(path.Clean(target), "/")
		} else {
			resolved = strings.TrimPrefix(path.Clean(path.Join("/"+dir, target)), "/")
		}
		out = append(out, relationship{id: id, typ: typ, target: resolved})
	}
	return out, nil
}

// relByType returns the target of the first relationship of name whose
// type ends in suffix, or "".
func (p *opcPackage) relByType(name, suffix string) (string, error) {
	rs, err := p.rels(name)
	if err != nil {
		return "", err
	}
	for _, r := range rs {
		if strings.HasSuffix(r.typ, suffix) {
			return r.target, nil
		}
	}
	return "", nil
}
