package task

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Charts and pivot tables of a sheet, as OSWorld's load_charts and
// load_pivot_tables describe them through openpyxl.

// sheetCharts returns the chart parts of a sheet in drawing order.
func sheetCharts(b *xlsxBook, s *xlsxSheet) []struct {
	part   string
	anchor *xmlNode
} {
	var out []struct {
		part   string
		anchor *xmlNode
	}
	for _, d := range b.pk.relsOfType(s.part, "/drawing") {
		root, err := b.pk.xml(d)
		if err != nil {
			continue
		}
		for _, anchor := range root.Children {
			for _, c := range anchor.find("chart") {
				id, ok := c.Attr["id"]
				if !ok {
					continue
				}
				if t, ok := b.pk.relTarget(d, id); ok {
					out = append(out, struct {
						part   string
						anchor *xmlNode
					}{t, anchor})
				}
			}
		}
	}
	return out
}

// richTitle is title.tx.rich.p[0].r[0].t, nil when absent.
func richTitle(title *xmlNode) any {
	rich := title.path("tx", "rich")
	if rich == nil {
		return nil
	}
	p := rich.child("p")
	r := p.child("r")
	t := r.child("t")
	if t == nil {
		return nil
	}
	return t.Text
}

func refFormula(n *xmlNode) string {
	if f := n.path("numRef", "f"); f != nil {
		return f.Text
	}
	if f := n.path("strRef", "f"); f != nil {
		return f.Text
	}
	return ""
}

func loadCharts(b *xlsxBook, s *xlsxSheet, r map[string]any) (any, error) {
	props := map[string]bool{}
	if l, ok := r["chart_props"].([]any); ok {
		for _, p := range l {
			props[pyStr(p)] = true
		}
	}
	out := map[string]any{}
	for _, ch := range sheetCharts(b, s) {
		root, err := b.pk.xml(ch.part)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", ch.part, err)
		}
		chart := root.child("chart")
		plot := chart.child("plotArea")
		var typ *xmlNode
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
			for _, ser := range typ.children("ser") {
				series = append(series, refFormula(ser.child("val"))+","+refFormula(ser.child("cat")))
			}
		}
		info := map[string]any{}
		if props["title"] {
			info["title"] = richTitle(chart.child("title"))
		}
		if props["legend"] {
			if lg := chart.child("legend"); lg != nil {
				pos := "r"
				if p := lg.child("legendPos"); p != nil {
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
			num := func(n *xmlNode, k string) any {
				i, _ := strconv.Atoi(strings.TrimSpace(n.child(k).allText()))
				return intNumber(i)
			}
			edit := any(nil)
			if v, ok := a.Attr["editAs"]; ok {
				edit = v
			} else if a.Name == "twoCellAnchor" {
				edit = "twoCell"
			}
			info["anchor"] = []any{edit, num(a.child("from"), "col"), num(a.child("to"), "row"), num(a.child("to"), "col"), num(a.child("to"), "row")}
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
			if d := typ.child("barDir"); d != nil {
				info["direction"] = d.Attr["val"]
			} else {
				info["direction"] = nil
			}
		}
		// openpyxl binds x, y and z to the axes of the chart's axId list.
		axes := map[string]*xmlNode{}
		if plot != nil {
			for _, c := range plot.Children {
				if strings.HasSuffix(c.Name, "Ax") {
					if id := c.child("axId"); id != nil {
						axes[id.Attr["val"]] = c
					}
				}
			}
		}
		ids := typ.children("axId")
		for i, k := range []string{"xtitle", "ytitle", "ztitle"} {
			if !props[k] {
				continue
			}
			var ax *xmlNode
			if i < len(ids) {
				ax = axes[ids[i].Attr["val"]]
			}
			info[k] = richTitle(ax.child("title"))
		}
		out[strings.Join(series, ";")] = info
	}
	return out, nil
}

func xmlTrue(n *xmlNode, attr string, def bool) bool {
	v, ok := n.Attr[attr]
	if !ok {
		return def
	}
	return v == "1" || strings.EqualFold(v, "true")
}

func loadPivots(b *xlsxBook, s *xlsxSheet, r map[string]any) (any, error) {
	props := map[string]bool{}
	if l, ok := r["pivot_props"].([]any); ok {
		for _, p := range l {
			props[pyStr(p)] = true
		}
	}
	out := map[string]any{}
	for _, pt := range b.pk.relsOfType(s.part, "/pivotTable") {
		root, err := b.pk.xml(pt)
		if err != nil {
			return nil, fmt.Errorf("pivot table %s: %w", pt, err)
		}
		var cache *xmlNode
		for _, c := range b.pk.relsOfType(pt, "/pivotCacheDefinition") {
			if cache, err = b.pk.xml(c); err != nil {
				return nil, fmt.Errorf("pivot cache %s: %w", c, err)
			}
			break
		}
		if cache == nil {
			return nil, fmt.Errorf("pivot table %s: no cache definition", pt)
		}
		var raw [][]any
		for _, f := range root.path("pivotFields").children("pivotField") {
			items := []any{}
			for _, it := range f.path("items").children("item") {
				xs, ok := it.Attr["x"]
				if !ok {
					continue
				}
				x, _ := strconv.Atoi(xs)
				var h any
				if v, ok := it.Attr["h"]; ok {
					h = v == "1" || strings.EqualFold(v, "true")
				}
				items = append(items, []any{h, intNumber(x)})
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
		src := cache.child("cacheSource")
		ws := src.child("worksheetSource")
		ref, ok := ws.attr("ref")
		if !ok {
			return nil, fmt.Errorf("pivot cache of %s: no worksheet range", pt)
		}
		a, z, _ := strings.Cut(ref, ":")
		c1, r1, err1 := splitCellRef(a)
		c2, r2, err2 := splitCellRef(z)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("pivot cache of %s: range %q", pt, ref)
		}
		typ := "worksheet"
		if v, ok := src.attr("type"); ok {
			typ = v
		}
		sheetName, _ := ws.attr("sheet")
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
			info["location"] = root.path("location").Attr["ref"]
		}
		if props["filter"] || props["selection"] {
			list := make([]any, len(selection))
			for i, items := range selection {
				if props["ordered"] {
					list[i] = items
				} else {
					set := map[string]bool{}
					for _, it := range items {
						set[pyRepr(it)] = true
					}
					list[i] = sortedSet(set)
				}
			}
			info["selection"] = list
		}
		if props["filter"] {
			set := map[string]bool{}
			for _, f := range root.path("pageFields").children("pageField") {
				set[f.Attr["fld"]] = true
			}
			info["filter_fields"] = sortedSet(set)
		}
		fields := func(name string) []any {
			list := []any{}
			for _, f := range root.path(name).children("field") {
				x, _ := strconv.Atoi(f.Attr["x"])
				list = append(list, intNumber(x-left))
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
			for _, f := range root.path("dataFields").children("dataField") {
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
