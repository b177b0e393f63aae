package task

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
	"time"
)

// The office metrics read OOXML (xlsx, docx) and ODF packages directly:
// a zip archive of XML parts, each parsed into a small tree of xmlNode.
// Every read is bounded (maxOfficePartSize per part, maxPackageFiles entries)
// so that a corrupt or hostile file is an error, never a hang or a
// memory blow-up.

const (
	maxOfficePartSize = 64 << 20
	maxPackageFiles   = 20000
	maxOfficeXMLDepth = 256
)

// xmlNode is one element: its local name, its attributes by local name
// (namespaces dropped), its children and its character data.
type xmlNode struct {
	Name     string
	Space    string
	Attr     map[string]string
	Children []*xmlNode
	// Text is the character data before the first child element, Tail
	// the character data after the element's end, up to its next
	// sibling (as lxml has them).
	Text string
	Tail string
}

// attr returns the attribute by local name.
func (n *xmlNode) attr(name string) (string, bool) {
	if n == nil {
		return "", false
	}
	v, ok := n.Attr[name]
	return v, ok
}

// child returns the first child element of that local name, or nil.
func (n *xmlNode) child(name string) *xmlNode {
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

// children returns the child elements of that local name.
func (n *xmlNode) children(name string) []*xmlNode {
	if n == nil {
		return nil
	}
	var out []*xmlNode
	for _, c := range n.Children {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// path follows a chain of first children.
func (n *xmlNode) path(names ...string) *xmlNode {
	for _, name := range names {
		n = n.child(name)
	}
	return n
}

// walk visits n and its descendants in document order; fn returning
// false skips the node's descendants.
func (n *xmlNode) walk(fn func(*xmlNode) bool) {
	if n == nil || !fn(n) {
		return
	}
	for _, c := range n.Children {
		c.walk(fn)
	}
}

// find returns the descendants (n excluded) of that local name.
func (n *xmlNode) find(name string) []*xmlNode {
	var out []*xmlNode
	for _, c := range n.Children {
		c.walk(func(x *xmlNode) bool {
			if x.Name == name {
				out = append(out, x)
			}
			return true
		})
	}
	return out
}

// has reports whether a descendant of that local name exists.
func (n *xmlNode) has(name string) bool { return len(n.find(name)) > 0 }

// allText is the character data of n and its descendants, in order.
func (n *xmlNode) allText() string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var rec func(x *xmlNode)
	rec = func(x *xmlNode) {
		b.WriteString(x.Text)
		for _, c := range x.Children {
			rec(c)
			b.WriteString(c.Tail)
		}
	}
	rec(n)
	return b.String()
}

// ownText is the character data directly inside n (its children's
// text excluded), in order.
func (n *xmlNode) ownText() string {
	if n == nil {
		return ""
	}
	s := n.Text
	for _, c := range n.Children {
		s += c.Tail
	}
	return s
}

// parseOfficeXML reads an XML document into a tree. Character data is kept on
// the element that directly contains it (mixed content is concatenated).
func parseOfficeXML(data []byte) (*xmlNode, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxOfficeXMLDepth {
				return nil, errors.New("XML nested too deep")
			}
			n := &xmlNode{Name: t.Name.Local, Space: t.Name.Space, Attr: make(map[string]string, len(t.Attr))}
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
		return nil, errors.New("no XML element")
	}
	return root, nil
}

// officePackage is an opened zip package.
type officePackage struct {
	files map[string]*zip.File
	cache map[string]*xmlNode
}

// openOfficePackage opens a zip package from a host path.
func openOfficePackage(p string) (*officePackage, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: file not found", p)
		}
		return nil, err
	}
	return openOfficePackageBytes(data)
}

func openOfficePackageBytes(data []byte) (*officePackage, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a zip package: %w", err)
	}
	if len(zr.File) > maxPackageFiles {
		return nil, fmt.Errorf("zip package has %d entries, more than %d", len(zr.File), maxPackageFiles)
	}
	pk := &officePackage{files: map[string]*zip.File{}, cache: map[string]*xmlNode{}}
	for _, f := range zr.File {
		pk.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	return pk, nil
}

// read returns a part's bytes.
func (pk *officePackage) read(name string) ([]byte, error) {
	f, ok := pk.files[strings.TrimPrefix(name, "/")]
	if !ok {
		return nil, fmt.Errorf("part %s: not in the package", name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxOfficePartSize+1))
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	if len(data) > maxOfficePartSize {
		return nil, fmt.Errorf("part %s: larger than %d bytes", name, maxOfficePartSize)
	}
	return data, nil
}

// has reports whether the part exists.
func (pk *officePackage) has(name string) bool {
	_, ok := pk.files[strings.TrimPrefix(name, "/")]
	return ok
}

// xml returns a part parsed (cached).
func (pk *officePackage) xml(name string) (*xmlNode, error) {
	name = strings.TrimPrefix(name, "/")
	if n, ok := pk.cache[name]; ok {
		return n, nil
	}
	data, err := pk.read(name)
	if err != nil {
		return nil, err
	}
	n, err := parseOfficeXML(data)
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	pk.cache[name] = n
	return n, nil
}

// officeRel is one relationship of a part.
type officeRel struct {
	ID, Type, Target string
	External         bool
}

// rels returns the relationships of a part, in file order, targets
// resolved to package paths.
func (pk *officePackage) rels(part string) []officeRel {
	dir, file := path.Split(strings.TrimPrefix(part, "/"))
	root, err := pk.xml(dir + "_rels/" + file + ".rels")
	if err != nil {
		return nil
	}
	var out []officeRel
	for _, r := range root.children("Relationship") {
		rel := officeRel{ID: r.Attr["Id"], Type: r.Attr["Type"], Target: r.Attr["Target"]}
		rel.External = r.Attr["TargetMode"] == "External"
		if !rel.External {
			if strings.HasPrefix(rel.Target, "/") {
				rel.Target = strings.TrimPrefix(rel.Target, "/")
			} else {
				rel.Target = path.Clean(dir + rel.Target)
			}
		}
		out = append(out, rel)
	}
	return out
}

// relTarget returns the target of the relationship id of a part.
func (pk *officePackage) relTarget(part, id string) (string, bool) {
	for _, r := range pk.rels(part) {
		if r.ID == id && !r.External {
			return r.Target, true
		}
	}
	return "", false
}

// relsOfType returns the internal targets whose type ends with suffix.
func (pk *officePackage) relsOfType(part, suffix string) []string {
	var out []string
	for _, r := range pk.rels(part) {
		if !r.External && strings.HasSuffix(r.Type, suffix) {
			out = append(out, r.Target)
		}
	}
	return out
}

// panicDetail starts the detail of a metric that panicked (a bug: the
// readers return errors).
const panicDetail = "internal error reading the document: "

// officeMetricTimeout bounds one call of an office metric.
const officeMetricTimeout = 60 * time.Second

// withDeadline runs an office metric under officeMetricTimeout (and the
// caller's context): a document that takes longer to read scores 0 with
// a detail instead of holding the grading up.
func withDeadline(fn metricFunc) metricFunc {
	return func(env metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
		parent := env.ctx
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithTimeout(parent, officeMetricTimeout)
		defer cancel()
		env.ctx = ctx
		type out struct {
			s      float64
			detail string
			err    error
		}
		ch := make(chan out, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					ch <- out{0, fmt.Sprintf("%s%v", panicDetail, p), nil}
				}
			}()
			s, d, err := fn(env, result, expected, opts)
			ch <- out{s, d, err}
		}()
		select {
		case o := <-ch:
			return o.s, o.detail, o.err
		case <-ctx.Done():
			if err := parent.Err(); err != nil {
				return 0, "", err
			}
			return 0, fmt.Sprintf("gave up after %s", officeMetricTimeout), nil
		}
	}
}
