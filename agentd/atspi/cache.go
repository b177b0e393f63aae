package atspi

import (
	"cmp"
	"slices"
	"sync"
)

// AT-SPI's Cache interface: one call answers every object an application
// keeps in its bridge's cache with its parent, index in the parent, child
// count, interfaces, name, role, description and states
// (at-spi2-core xml/Cache.xml).
const (
	ifCache   = "org.a11y.atspi.Cache"
	cachePath = "/org/a11y/atspi/cache"
	nullPath  = "/org/a11y/atspi/null"
)

// cacheItem is one element of GetItems' answer, in either signature:
// a((so)(so)(so)iiassusau) since 2015, a((so)(so)(so)a(so)assusau) before
// (Qt still answers the old one).
type cacheItem struct {
	ref, parent  Ref
	index, count int   // -1 when unknown
	kids         []Ref // the old signature's children
	ifaces       []string
	name, desc   string
	role         uint32
	states       []uint32
}

type itemNew struct {
	Obj, App, Parent objRef
	Index, Count     int32
	Ifaces           []string
	Name             string
	Role             uint32
	Desc             string
	States           []uint32
}

type itemOld struct {
	Obj, App, Parent objRef
	Kids             []objRef
	Ifaces           []string
	Name             string
	Role             uint32
	Desc             string
	States           []uint32
}

func (r objRef) ref() Ref { return Ref{r.Bus, string(r.Path)} }

// cacheItems asks the application for its cached objects. An error says
// the application has no usable Cache (or did not answer in time).
func (w *walker) cacheItems(app Ref) ([]cacheItem, error) {
	call := w.c.async(w.ctx, Ref{app.Bus, cachePath}, ifCache+".GetItems").wait()
	if call.Err != nil {
		return nil, call.Err
	}
	var nw []itemNew
	if err := call.Store(&nw); err == nil {
		out := make([]cacheItem, 0, len(nw))
		for _, it := range nw {
			out = append(out, cacheItem{ref: it.Obj.ref(), parent: it.Parent.ref(), index: int(it.Index), count: int(it.Count),
				ifaces: it.Ifaces, name: it.Name, role: it.Role, desc: it.Desc, states: it.States})
		}
		return out, nil
	}
	var old []itemOld
	if err := call.Store(&old); err != nil {
		return nil, err
	}
	out := make([]cacheItem, 0, len(old))
	for _, it := range old {
		out = append(out, cacheItem{ref: it.Obj.ref(), parent: it.Parent.ref(), index: -1, count: len(it.Kids),
			kids: toRefs(it.Kids), ifaces: it.Ifaces, name: it.Name, role: it.Role, desc: it.Desc, states: it.States})
	}
	return out, nil
}

// roleNames names the roles the items use: GetRoleName once for each role
// number not yet known of this application (pipelined), so the names are
// exactly those the application gives.
func (w *walker) roleNames(items []cacheItem) map[uint32]string {
	bus := ""
	if len(items) > 0 {
		bus = items[0].ref.Bus
	}
	w.c.mu.Lock()
	known := w.c.roles[bus]
	if known == nil {
		known = map[uint32]string{}
		w.c.roles[bus] = known
	}
	names := make(map[uint32]string, len(known))
	for k, v := range known {
		names[k] = v
	}
	w.c.mu.Unlock()
	ask := map[uint32]pending{}
	for _, it := range items {
		if _, ok := names[it.role]; ok {
			continue
		}
		if _, ok := ask[it.role]; !ok {
			ask[it.role] = w.c.async(w.ctx, it.ref, ifAccessible+".GetRoleName")
		}
	}
	for role, p := range ask {
		var s string
		if err := p.wait().Store(&s); err != nil {
			w.note(err)
			continue
		}
		names[role] = trimRole(s)
	}
	w.c.mu.Lock()
	for role := range ask {
		if s, ok := names[role]; ok {
			known[role] = s
		}
	}
	w.c.mu.Unlock()
	return names
}

// fromCache reads the application's tree from its Cache: the skeleton in
// one call, then only the data the interfaces hold (attributes, text,
// value, extents of showing objects, actions), pipelined. Objects the cache
// lacks (children of objects that manage their descendants, such as a
// sheet's cells, or ones the bridge has not cached yet) are walked. ok is
// false when the application has no usable cache: the caller walks.
func (w *walker) fromCache(app Ref) (n *Node, ok bool) {
	items, err := w.cacheItems(app)
	if err != nil {
		if isTimeout(err) {
			w.note(err)
			return &Node{Ref: app, ID: app.ID(), Partial: true, Error: "application not answering: " + err.Error()}, true
		}
		return nil, false
	}
	if len(items) == 0 {
		return nil, false
	}
	roles := w.roleNames(items)
	byRef := make(map[Ref]*cacheItem, len(items))
	kids := map[Ref][]*cacheItem{}
	for i := range items {
		it := &items[i]
		byRef[it.ref] = it
		if it.kids == nil && it.parent.Path != nullPath {
			kids[it.parent] = append(kids[it.parent], it)
		}
	}
	for _, ks := range kids {
		slices.SortStableFunc(ks, func(a, b *cacheItem) int { return cmp.Compare(uint(a.index), uint(b.index)) })
	}
	b := &cacheBuild{w: w, byRef: byRef, kids: kids, roles: roles}
	root := b.node(app, 1, "")
	if root == nil { // the application object itself is not cached
		return nil, false
	}
	// the data calls, a bounded number of objects at a time
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for _, x := range b.fill {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			w.data(x, true)
		})
	}
	wg.Wait()
	markPartial(root)
	return root, true
}

type cacheBuild struct {
	w     *walker
	byRef map[Ref]*cacheItem
	kids  map[Ref][]*cacheItem
	roles map[uint32]string
	fill  []*Node // nodes built from the cache, whose data is still to read
}

// node builds the object r and its subtree from the cache, walking what
// the cache does not hold; nil when r itself is not cached.
func (b *cacheBuild) node(r Ref, depth int, flag string) *Node {
	it := b.byRef[r]
	var n *Node
	switch {
	case it == nil && depth == 1 && len(b.kids[r]) > 0:
		// the application object is not cached, its children are
		n = &Node{Ref: r, ID: r.ID()}
		b.w.fill(n)
		if n.Partial {
			return n
		}
		it = &cacheItem{count: -1}
	case it == nil:
		return nil
	default:
		role, known := b.roles[it.role]
		if !known { // GetRoleName failed: read the object the usual way
			return b.w.node(r, depth, flag)
		}
		n = &Node{Ref: r, ID: r.ID(), Role: role, Name: it.name, Description: it.desc,
			States: decodeStates(it.states), Interfaces: it.ifaces}
		b.fill = append(b.fill, n)
	}
	if flag == "" && n.Role == "document spreadsheet" {
		flag = "calc"
	}
	if b.w.unseen(n) {
		return n
	}
	if b.w.stub && n.Role == "document web" {
		n.Stub = true
		return n
	}
	if depth >= MaxDepth || b.w.dead() {
		return n
	}
	if flag == "calc" && n.Role == "table" {
		b.w.calcCells(n, depth, flag)
		return n
	}
	var refs []Ref
	ordered := true
	if it.kids != nil {
		refs = it.kids
	} else {
		for i, k := range b.kids[r] {
			refs = append(refs, k.ref)
			ordered = ordered && k.index == i
		}
	}
	if it.count < 0 || it.count > 0 && (len(refs) != min(it.count, MaxWidth) || !ordered || n.Has("manages_descendants")) {
		// the cache does not hold all the children, or not their order
		// (menus have no child count and menu items no index in the
		// cache): ask for them
		live, err := b.w.children(r, n.Role)
		if err != nil {
			n.Partial, n.Error = true, err.Error()
		}
		if len(live) > 0 || err == nil {
			refs = live
		}
	}
	if len(refs) > MaxWidth {
		refs = refs[:MaxWidth]
	}
	var walk []int
	for _, k := range refs {
		if k.Path == "" {
			continue
		}
		c := b.node(k, depth+1, flag)
		if c == nil {
			walk = append(walk, len(n.Children))
			c = &Node{Ref: k}
		}
		n.Children = append(n.Children, c)
	}
	if len(walk) > 0 { // uncached children: walked, concurrently
		refs := make([]Ref, len(walk))
		for i, j := range walk {
			refs[i] = n.Children[j].Ref
		}
		for i, c := range b.w.nodes(refs, depth+1, flag) {
			n.Children[walk[i]] = c
		}
	}
	return n
}

// markPartial carries the partial marks of subtrees up to their ancestors.
func markPartial(n *Node) bool {
	for _, k := range n.Children {
		if markPartial(k) {
			n.Partial = true
		}
	}
	return n.Partial
}
