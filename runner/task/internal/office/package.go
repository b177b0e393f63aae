package office

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// The one container every document is read through: a zip of parts,
// each read bounded (entries per package, bytes per part and per
// package) and checking the caller's context, each XML part parsed once
// into a tree of Node, bounded too (depth, element count).

const (
	// Namespaces of the DrawingML and PresentationML parts.
	NSA   = "http://schemas.openxmlformats.org/drawingml/2006/main"
	NSP   = "http://schemas.openxmlformats.org/presentationml/2006/main"
	NSR   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsRel = "http://schemas.openxmlformats.org/package/2006/relationships"

	maxPartSize     = 64 << 20  // decompressed bytes of one part
	maxPackageRead  = 256 << 20 // decompressed bytes read from one package
	maxPackageFiles = 20000     // entries of one package
	maxXMLDepth     = 256
	maxXMLElements  = 2_000_000
	ctxCheckEvery   = 4096

	relTypeSlide    = "/slide"
	relTypeLayout   = "/slideLayout"
	RelTypeMaster   = "/slideMaster"
	relTypeNotes    = "/notesSlide"
	relTypeOfficeDc = "/officeDocument"
)

// Node is one element: its local name and namespace, its attributes by
// local name (namespace declarations dropped) and as written, its
// children and its character data.
type Node struct {
	Name  string
	Space string
	// Attr holds the attributes by local name, namespaces dropped.
	Attr map[string]string
	// NSAttr holds the attributes as written, with their namespaces.
	NSAttr   []xml.Attr
	Children []*Node
	// Text is the character data before the first child element, Tail
	// the character data after the element's end, up to its next
	// sibling (as lxml has them).
	Text string
	Tail string
}

// Attribute returns the attribute by local name.
func (n *Node) Attribute(name string) (string, bool) {
	if n == nil {
		return "", false
	}
	v, ok := n.Attr[name]
	return v, ok
}

// Child returns the first child element of that local name, or nil.
func (n *Node) Child(name string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ChildrenNamed returns the child elements of that local name.
func (n *Node) ChildrenNamed(name string) []*Node {
	if n == nil {
		return nil
	}
	var out []*Node
	for _, c := range n.Children {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Path follows a chain of first children.
func (n *Node) Path(names ...string) *Node {
	for _, name := range names {
		n = n.Child(name)
	}
	return n
}

// Walk visits n and its descendants in document order; fn returning
// false skips the node's descendants.
func (n *Node) Walk(fn func(*Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	for _, c := range n.Children {
		c.Walk(fn)
	}
}

// Find returns the descendants (n excluded) of that local name.
func (n *Node) Find(name string) []*Node {
	var out []*Node
	for _, c := range n.Children {
		c.Walk(func(x *Node) bool {
			if x.Name == name {
				out = append(out, x)
			}
			return true
		})
	}
	return out
}

// Has reports whether a descendant of that local name exists.
func (n *Node) Has(name string) bool { return len(n.Find(name)) > 0 }

// AllText is the character data of n and its descendants, in order.
func (n *Node) AllText() string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var rec func(x *Node)
	rec = func(x *Node) {
		b.WriteString(x.Text)
		for _, c := range x.Children {
			rec(c)
			b.WriteString(c.Tail)
		}
	}
	rec(n)
	return b.String()
}

// OwnText is the character data directly inside n (its children's
// Text excluded), in order.
func (n *Node) OwnText() string {
	if n == nil {
		return ""
	}
	s := n.Text
	for _, c := range n.Children {
		s += c.Tail
	}
	return s
}

// AttrNS returns the attribute local in namespace ns ("" for none) and
// whether it is there.
func (n *Node) AttrNS(ns, local string) (string, bool) {
	if n == nil {
		return "", false
	}
	for _, a := range n.NSAttr {
		if a.Name.Local == local && a.Name.Space == ns {
			return a.Value, true
		}
	}
	return "", false
}

// ChildNS returns the first child element ns:local, or nil.
func (n *Node) ChildNS(ns, local string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Name == local && c.Space == ns {
			return c
		}
	}
	return nil
}

// PathNS follows first children by local names in namespace ns.
func (n *Node) PathNS(ns string, locals ...string) *Node {
	for _, l := range locals {
		n = n.ChildNS(ns, l)
	}
	return n
}

// FindNS returns the first descendant ns:local in document order (as
// ElementTree's find(".//x")), or nil.
func (n *Node) FindNS(ns, local string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Name == local && c.Space == ns {
			return c
		}
		if f := c.FindNS(ns, local); f != nil {
			return f
		}
	}
	return nil
}

// FindAllNS appends every descendant ns:local in document order.
func (n *Node) FindAllNS(ns, local string, out []*Node) []*Node {
	if n == nil {
		return out
	}
	for _, c := range n.Children {
		if c.Name == local && c.Space == ns {
			out = append(out, c)
		}
		out = c.FindAllNS(ns, local, out)
	}
	return out
}

// Parse reads an XML document into a tree, leniently (as lxml's
// recovering parser reads what LibreOffice and others write): character
// data is kept on the element that directly contains it.
func Parse(data []byte) (*Node, error) { return parse(context.Background(), data, false) }

// ParseStrict reads a well-formed XML document with one root element
// into a tree, checking ctx as it goes.
func ParseStrict(ctx context.Context, data []byte) (*Node, error) { return parse(ctx, data, true) }

func parse(ctx context.Context, data []byte, strict bool) (*Node, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = strict
	var stack []*Node
	var root *Node
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
				return nil, errors.New("XML nested too deep")
			}
			if count > maxXMLElements {
				return nil, errors.New("too many elements")
			}
			n := &Node{Name: t.Name.Local, Space: t.Name.Space, Attr: make(map[string]string, len(t.Attr)), NSAttr: append([]xml.Attr(nil), t.Attr...)}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || a.Name.Local == "xmlns" {
					continue
				}
				n.Attr[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if root == nil {
				root = n
			} else if strict {
				return nil, errors.New("more than one root element")
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				if len(p.Children) == 0 {
					p.Text += string(t)
				} else {
					p.Children[len(p.Children)-1].Tail += string(t)
				}
			}
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	return root, nil
}

// Package is an opened zip package (OOXML or ODF). It is not safe for
// concurrent use.
type Package struct {
	ctx    context.Context
	strict bool
	files  map[string]*zip.File
	trees  map[string]*Node
	read   int64 // decompressed bytes read so far
}

// Open opens a package from a host path, its parts parsed leniently.
func Open(p string) (*Package, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: file not found", p)
		}
		return nil, err
	}
	return OpenBytes(data)
}

// OpenBytes opens a package from its bytes, its parts parsed leniently.
func OpenBytes(data []byte) (*Package, error) {
	return open(context.Background(), data, false, "not a zip package")
}

// OpenOOXML opens an OOXML package whose parts must be well-formed; ctx
// bounds every read.
func OpenOOXML(ctx context.Context, data []byte) (*Package, error) {
	return open(ctx, data, true, "not an OOXML package")
}

func open(ctx context.Context, data []byte, strict bool, notOne string) (*Package, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", notOne, err)
	}
	if len(zr.File) > maxPackageFiles {
		return nil, fmt.Errorf("zip package has %d entries, more than %d", len(zr.File), maxPackageFiles)
	}
	pk := &Package{ctx: ctx, strict: strict, files: map[string]*zip.File{}, trees: map[string]*Node{}}
	for _, f := range zr.File {
		pk.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	return pk, nil
}

// Has reports whether the part exists.
func (pk *Package) Has(name string) bool {
	_, ok := pk.files[strings.TrimPrefix(name, "/")]
	return ok
}

// Read returns a part's bytes (a leading slash is ignored).
func (pk *Package) Read(name string) ([]byte, error) {
	name = strings.TrimPrefix(name, "/")
	f, ok := pk.files[name]
	if !ok {
		return nil, fmt.Errorf("part %s: not in the package", name)
	}
	if f.UncompressedSize64 > maxPartSize {
		return nil, fmt.Errorf("part %s: larger than %d bytes", name, maxPartSize)
	}
	if pk.read+int64(f.UncompressedSize64) > maxPackageRead {
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
		if err := pk.ctx.Err(); err != nil {
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
	pk.read += int64(len(data))
	return data, nil
}

// XML returns a part parsed, parsing it once.
func (pk *Package) XML(name string) (*Node, error) {
	name = strings.TrimPrefix(name, "/")
	if t, ok := pk.trees[name]; ok {
		return t, nil
	}
	data, err := pk.Read(name)
	if err != nil {
		return nil, err
	}
	t, err := parse(pk.ctx, data, pk.strict)
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	pk.trees[name] = t
	return t, nil
}

// Rel is one relationship of a part.
type Rel struct {
	ID, Type string
	// Target is the part the relationship points to, resolved to a
	// package path; for an external one, the target as written.
	Target   string
	External bool
}

// Rels returns the relationships of a part in file order, targets
// resolved to package paths; a part without a .rels has none.
func (pk *Package) Rels(part string) ([]Rel, error) {
	dir, file := path.Split(strings.TrimPrefix(part, "/"))
	relName := dir + "_rels/" + file + ".rels"
	if !pk.Has(relName) {
		return nil, nil
	}
	root, err := pk.XML(relName)
	if err != nil {
		return nil, err
	}
	var out []Rel
	for _, r := range root.ChildrenNamed("Relationship") {
		rel := Rel{ID: r.Attr["Id"], Type: r.Attr["Type"], Target: r.Attr["Target"]}
		rel.External = r.Attr["TargetMode"] == "External"
		if !rel.External {
			if strings.HasPrefix(rel.Target, "/") {
				rel.Target = strings.TrimPrefix(path.Clean(rel.Target), "/")
			} else {
				rel.Target = strings.TrimPrefix(path.Clean(path.Join("/"+dir, rel.Target)), "/")
			}
		}
		out = append(out, rel)
	}
	return out, nil
}

// RelTarget returns the target of the internal relationship id of a
// part.
func (pk *Package) RelTarget(part, id string) (string, bool) {
	rels, _ := pk.Rels(part)
	for _, r := range rels {
		if r.ID == id && !r.External {
			return r.Target, true
		}
	}
	return "", false
}

// RelsOfType returns the internal targets of a part whose type ends with
// suffix.
func (pk *Package) RelsOfType(part, suffix string) []string {
	rels, _ := pk.Rels(part)
	var out []string
	for _, r := range rels {
		if !r.External && strings.HasSuffix(r.Type, suffix) {
			out = append(out, r.Target)
		}
	}
	return out
}

// RelByType returns the target of the first internal relationship of a
// part whose type ends in suffix, or "".
func (pk *Package) RelByType(part, suffix string) (string, error) {
	rels, err := pk.Rels(part)
	if err != nil {
		return "", err
	}
	for _, r := range rels {
		if !r.External && strings.HasSuffix(r.Type, suffix) {
			return r.Target, nil
		}
	}
	return "", nil
}
