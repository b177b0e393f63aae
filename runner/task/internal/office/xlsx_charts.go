package office

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// Charts and pivot tables of a sheet, as OSWorld's load_charts and
// load_pivot_tables describe them through openpyxl.

// sheetCharts returns the chart parts of a sheet in drawing order.
func sheetCharts(b *Book, s *Sheet) []struct {
	part   string
	anchor *Node
} {
	var out []struct {
		part   string
		anchor *Node
	}
	for _, d := range b.pk.RelsOfType(s.part, "/drawing") {
		root, err := b.pk.XML(d)
		if err != nil {
			continue
		}
		for _, anchor := range root.Children {
			for _, c := range anchor.Find("chart") {
				id, ok := c.Attr["id"]
				if !ok {
					continue
				}
				if t, ok := b.pk.RelTarget(d, id); ok {
					out = append(out, struct {
						part   string
						anchor *Node
					}{t, anchor})
				}
			}
		}
	}
	return out
}

// richTitle is title.tx.rich.p[0].r[0].t, nil when absent.
func richTitle(title *Node) any {
	rich := title.Path("tx", "rich")
	if rich == nil {
		return nil
	}
	p := rich.Child("p")
	r := p.Child("r")
	t := r.Child("t")
	if t == nil {
		return nil
	}
	return t.Text
}

func refFormula(n *Node) string {
	if f := n.Path("numRef", "f"); f != nil {
		return f.Text
	}
	if f := n.Path("strRef", "f"); f != nil {
		return f.Text
	}
	return ""
}

func LoadCharts(b *Book, s *Sheet, r map[string]any) (any, error) {
	props := map[string]bool{}
	if l, ok := r["chart_props"].([]any); ok {
		for _, p := range l {
			props[py.Str(p)] = true
		}
	}
	out := map[string]any{}
	for _, ch := range sheetCharts(b, s) {
		root, err := b.pk.XML(ch.part)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", ch.part, err)
		}
		chart := root.Child("chart")
		plot := chart.Child("plotArea")
		var typ *Node
		if plot != nil {
			for _, c := range plot.Children {
				if strings.HasSuffix(c.Name, "Chart") {
					typ = c
					break
				}
			}
		}
		var series []string
		if typ != nil {
			for _, ser := range typ.ChildrenNamed("ser") {
				series = append(series, refFormula(ser.Child("val"))+","+refFormula(ser.Child("cat")))
			}
		}
		info := map[string]any{}
		if props["title"] {
			info["title"] = richTitle(chart.Child("title"))
		}
		if props["legend"] {
			if lg := chart.Child("legend"); lg != nil {
				pos := "r"
				if p := lg.Child("legendPos"); p != nil {
					if v, ok := p.Attr["val"]; ok {
						pos = v
					}
				}
				info["legend"] = pos
			} else {
				info["legend"] = nil
			}
		}
		if props["anchor"] {
			a := ch.anchor
			num := func(n *Node, k string) any {
				i, _ := strconv.Atoi(strings.TrimSpace(n.Child(k).AllText()))
				return py.IntNumber(i)
			}
			edit := any(nil)
			if v, ok := a.Attr["editAs"]; ok {
				edit = v
			} else if a.Name == "twoCellAnchor" {
				edit = "twoCell"
			}
			info["anchor"] = []any{edit, num(a.Child("from"), "col"), num(a.Child("to"), "row"), num(a.Child("to"), "col"), num(a.Child("to"), "row")}
		}
		if props["width"] {
			info["width"] = json.Number("15.0")
		}
		if props["height"] {
			info["height"] = json.Number("7.5")
		}
		if props["type"] {
			if typ != nil {
				info["type"] = typ.Name
			} else {
				info["type"] = nil
			}
		}
		if props["direction"] {
			// openpyxl's bar charts alone have barDir (col when the
			// element is absent); on any other chart OSWorld raises.
			if typ == nil || (typ.Name != "barChart" && typ.Name != "bar3DChart") {
				name := "None"
				if typ != nil {
					name = typ.Name
				}
				return nil, fmt.Errorf("AttributeError: a %s has no barDir", name)
			}
			info["direction"] = "col"
			if d := typ.Child("barDir"); d != nil {
				if v, ok := d.Attr["val"]; ok {
					info["direction"] = v
				}
			}
		}
		// openpyxl binds x, y and z to the axes of the chart's axId list.
		axes := map[string]*Node{}
		if plot != nil {
			for _, c := range plot.Children {
				if strings.HasSuffix(c.Name, "Ax") {
					if id := c.Child("axId"); id != nil {
						axes[id.Attr["val"]] = c
					}
				}
			}
		}
		ids := typ.ChildrenNamed("axId")
		for i, k := range []string{"xtitle", "ytitle", "ztitle"} {
			if !props[k] {
				continue
			}
			var ax *Node
			if i < len(ids) {
				ax = axes[ids[i].Attr["val"]]
			}
			info[k] = richTitle(ax.Child("title"))
		}
		out[strings.Join(series, ";")] = info
	}
	return out, nil
}

func xmlTrue(n *Node, attr string, def bool) bool {
	v, ok := n.Attr[attr]
	if !ok {
		return def
	}
	return v == "1" || strings.EqualFold(v, "true")
}

func LoadPivots(b *Book, s *Sheet, r map[string]any) (any, error) {
	props := map[string]bool{}
	if l, ok := r["pivot_props"].([]any); ok {
		for _, p := range l {
			props[py.Str(p)] = true
		}
	}
	out := map[string]any{}
	for _, pt := range b.pk.RelsOfType(s.part, "/pivotTable") {
		root, err := b.pk.XML(pt)
		if err != nil {
			return nil, fmt.Errorf("pivot table %s: %w", pt, err)
		}
		var cache *Node
		for _, c := range b.pk.RelsOfType(pt, "/pivotCacheDefinition") {
			if cache, err = b.pk.XML(c); err != nil {
				return nil, fmt.Errorf("pivot cache %s: %w", c, err)
			}
			break
		}
		if cache == nil {
			return nil, fmt.Errorf("pivot table %s: no cache definition", pt)
		}
		var raw [][]any
		for _, f := range root.Path("pivotFields").ChildrenNamed("pivotField") {
			items := []any{}
			for _, it := range f.Path("items").ChildrenNamed("item") {
				xs, ok := it.Attr["x"]
				if !ok {
					continue
				}
				x, _ := strconv.Atoi(xs)
				var h any
				if v, ok := it.Attr["h"]; ok {
					h = v == "1" || strings.EqualFold(v, "true")
				}
				items = append(items, []any{h, py.IntNumber(x)})
			}
			raw = append(raw, items)
		}
		left := 0
		for left < len(raw) && len(raw[left]) == 0 {
			left++
		}
		right := 0
		for right < len(raw)-left && len(raw[len(raw)-1-right]) == 0 {
			right++
		}
		selection := raw[left : len(raw)-right]
		src := cache.Child("cacheSource")
		ws := src.Child("worksheetSource")
		ref, ok := ws.Attribute("ref")
		if !ok {
			return nil, fmt.Errorf("pivot cache of %s: no worksheet range", pt)
		}
		a, z, _ := strings.Cut(ref, ":")
		c1, r1, err1 := SplitCellRef(a)
		c2, r2, err2 := SplitCellRef(z)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("pivot cache of %s: range %q", pt, ref)
		}
		typ := "worksheet"
		if v, ok := src.Attribute("type"); ok {
			typ = v
		}
		sheetName, _ := ws.Attribute("sheet")
		source := fmt.Sprintf("%s;(%d, %d):(%d, %d);%s", typ, r1, c1+left, r2, c2-right, sheetName)

		info := map[string]any{}
		if props["name"] {
			info["name"] = root.Attr["name"]
		}
		if props["show_total"] {
			info["show_total"] = xmlTrue(root, "visualTotals", true)
		}
		if props["show_empty_row"] {
			info["show_empty_row"] = xmlTrue(root, "showEmptyRow", false)
		}
		if props["show_empty_col"] {
			info["show_empty_col"] = xmlTrue(root, "showEmptyCol", false)
		}
		if props["show_headers"] {
			info["show_headers"] = xmlTrue(root, "showHeaders", true)
		}
		if props["location"] {
			info["location"] = root.Path("location").Attr["ref"]
		}
		if props["filter"] || props["selection"] {
			list := make([]any, len(selection))
			for i, items := range selection {
				if props["ordered"] {
					list[i] = items
				} else {
					set := map[string]bool{}
					for _, it := range items {
						set[py.Repr(it)] = true
					}
					list[i] = SortedSet(set)
				}
			}
			info["selection"] = list
		}
		if props["filter"] {
			set := map[string]bool{}
			for _, f := range root.Path("pageFields").ChildrenNamed("pageField") {
				set[f.Attr["fld"]] = true
			}
			info["filter_fields"] = SortedSet(set)
		}
		fields := func(name string) []any {
			list := []any{}
			for _, f := range root.Path(name).ChildrenNamed("field") {
				x, _ := strconv.Atoi(f.Attr["x"])
				list = append(list, py.IntNumber(x-left))
			}
			return list
		}
		if props["col_fields"] {
			info["col_fields"] = fields("colFields")
		}
		if props["row_fields"] {
			info["row_fields"] = fields("rowFields")
		}
		if props["data_fields"] {
			list := []any{}
			for _, f := range root.Path("dataFields").ChildrenNamed("dataField") {
				fld, _ := strconv.Atoi(f.Attr["fld"])
				name := ""
				if props["data_fields_name"] {
					name = "None"
					if v, ok := f.Attr["name"]; ok {
						name = v
					}
				}
				sub := "sum"
				if v, ok := f.Attr["subtotal"]; ok {
					sub = v
				}
				show := "normal"
				if v, ok := f.Attr["showDataAs"]; ok {
					show = v
				}
				list = append(list, fmt.Sprintf("%d;%s;%s;%s", fld-left, name, sub, show))
			}
			info["data_fields"] = list
		}
		out[source] = info
	}
	return out, nil
}
