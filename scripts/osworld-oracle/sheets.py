"""The "sheets" family: workbooks written XML part by XML part, so that each
case shows one way pandas' read_excel, openpyxl's loader or OSWorld's own
read_cell_value reads a sheet (NA strings, dtype inference, blank rows,
integers past 2**53, dates, error cells, phonetic runs, workbooks openpyxl
refuses, inline strings, sheet{sheetId}.xml, ranges, panes, data
validations, chart directions, CSV encodings).

Every workbook is small: a few cells, no styles but the date formats.
"""

import io
import itertools
import json
import zipfile
from xml.sax.saxutils import escape

from gen import F

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RNS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

# cellXfs: 0 General, 1 mm-dd-yy (14), 2 "d" (164), 3 m/d/yy h:mm (22),
# 4 yyyy-mm-dd hh:mm:ss.000 (165), 5 text "@" (49), 6 0.00 (2)
STYLES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<styleSheet xmlns="%s"><numFmts count="2"><numFmt numFmtId="164" formatCode="d"/>'
    '<numFmt numFmtId="165" formatCode="yyyy-mm-dd hh:mm:ss.000"/></numFmts>'
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    '<cellXfs count="7"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
    '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '<xf numFmtId="22" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '<xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '</cellXfs></styleSheet>' % NS)


class X:
    """A cell given as XML: attrs for <c> (r is added) and its inner XML."""

    def __init__(self, attrs="", inner=""):
        self.attrs, self.inner = attrs, inner


def num(v, style=0):
    return X(' s="%d"' % style if style else "", "<v>%s</v>" % v)


def err(v):
    return X(' t="e"', "<v>%s</v>" % escape(v))


def boolean(v):
    return X(' t="b"', "<v>%s</v>" % v)


def inline(inner):
    return X(' t="inlineStr"', "<is>%s</is>" % inner)


def col_name(i):
    s = ""
    while i > 0:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def sheet_xml(rows, extra="", views=""):
    """ROWS: list of (row number, [values]) or a plain list of lists (rows
    1..n). A value is None (no cell), a str (a shared string), an int or
    float (a number), or an X."""
    if rows and not isinstance(rows[0], tuple):
        rows = list(enumerate(rows, 1))
    sst = []
    out = []
    for rn, vals in rows:
        cells = []
        for ci, v in enumerate(vals, 1):
            if v is None:
                continue
            ref = "%s%d" % (col_name(ci), rn)
            if isinstance(v, X):
                cells.append('<c r="%s"%s>%s</c>' % (ref, v.attrs, v.inner))
            elif isinstance(v, bool):
                cells.append('<c r="%s" t="b"><v>%d</v></c>' % (ref, v))
            elif isinstance(v, (int, float)):
                cells.append('<c r="%s"><v>%r</v></c>' % (ref, v))
            else:
                if v not in sst:
                    sst.append(v)
                cells.append('<c r="%s" t="s"><v>%d</v></c>' % (ref, sst.index(v)))
        out.append('<row r="%d">%s</row>' % (rn, "".join(cells)))
    xml = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="%s" xmlns:r="%s">'
           '%s<sheetData>%s</sheetData>%s</worksheet>' % (NS, RNS, views, "".join(out), extra))
    return xml, sst


def xlsx(sheets, sst_xml=None, sheet_ids=None, files=None, parts=None):
    """A workbook of SHEETS [(name, rows)] or [(name, rows, extra, views)].
    Shared strings are collected over the sheets unless SST_XML gives the
    part whole. SHEET_IDS overrides each sheet's sheetId and FILES its
    part's file name (default sheet1.xml, sheet2.xml, ...); PARTS adds
    parts {name: bytes}."""
    strings = []
    xmls = []
    for s in sheets:
        name, rows = s[0], s[1]
        extra = s[2] if len(s) > 2 else ""
        views = s[3] if len(s) > 3 else ""
        x, sst = sheet_xml(rows, extra, views)
        # re-index this sheet's strings into the book's table
        for i, v in enumerate(sst):
            if v not in strings:
                strings.append(v)
        for i, v in reversed(list(enumerate(sst))):
            x = x.replace('t="s"><v>%d</v>' % i, 't="s"><v>@%d@</v>' % strings.index(v))
        import re
        x = re.sub(r"@(\d+)@", r"\1", x)
        xmls.append((name, x))
    files = files or ["sheet%d.xml" % (i + 1) for i in range(len(sheets))]
    sheet_ids = sheet_ids or list(range(1, len(sheets) + 1))
    b = io.BytesIO()
    z = zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED)
    ct = ['<Override PartName="/xl/worksheets/%s" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' % f for f in files]
    z.writestr("[Content_Types].xml",
               '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
               '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
               '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
               '<Default Extension="xml" ContentType="application/xml"/>'
               '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
               '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
               '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
               + "".join(ct) + "</Types>")
    z.writestr("_rels/.rels",
               '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
               '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
               '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
               '</Relationships>')
    z.writestr("xl/workbook.xml",
               '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="%s" xmlns:r="%s"><sheets>%s</sheets></workbook>'
               % (NS, RNS, "".join('<sheet name="%s" sheetId="%d" r:id="rId%d"/>' % (escape(n, {'"': "&quot;"}), sheet_ids[i], i + 1)
                                  for i, (n, _) in enumerate(xmls))))
    rels = ['<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/%s"/>'
            % (i + 1, files[i]) for i in range(len(xmls))]
    rels.append('<Relationship Id="rId90" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>')
    rels.append('<Relationship Id="rId91" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>')
    z.writestr("xl/_rels/workbook.xml.rels",
               '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
               '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">%s</Relationships>' % "".join(rels))
    z.writestr("xl/styles.xml", STYLES)
    if sst_xml is None:
        sst_xml = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="%s" count="%d" uniqueCount="%d">%s</sst>'
                   % (NS, len(strings), len(strings), "".join('<si><t xml:space="preserve">%s</t></si>' % escape(s) for s in strings)))
    z.writestr("xl/sharedStrings.xml", sst_xml)
    for i, (_, x) in enumerate(xmls):
        z.writestr("xl/worksheets/" + files[i], x)
    for n, data in (parts or {}).items():
        z.writestr(n, data)
    z.close()
    return b.getvalue()


def sst(*items):
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="%s" count="%d" uniqueCount="%d">%s</sst>'
            % (NS, len(items), len(items), "".join("<si>%s</si>" % i for i in items)))


def data_rule(a="RI0", b="EI0", **kw):
    r = {"type": "sheet_data", "sheet_idx0": a, "sheet_idx1": b}
    r.update(kw)
    return {"rules": [r]}


def all_pairs(cases, files, rule, note):
    for a, b in itertools.product(sorted(files), repeat=2):
        cases.add("compare_table", F(files[a]), F(files[b]), options=rule, note="%s: %s vs %s" % (note, a, b))


def fam_sheets(cases, store, tasks):
    put = lambda data: store.put(data, "xlsx")  # noqa: E731

    # pandas' NA strings, error cells and blanks in one column
    na = {"blank": None, "empty_str": "", "NA": "NA", "N/A": "N/A", "n/a": "n/a", "null": "null", "NULL": "NULL",
          "nan": "nan", "NaN": "NaN", "-NaN": "-NaN", "-nan": "-nan", "#N/A_text": "#N/A", "#NA": "#NA",
          "#N/A N/A": "#N/A N/A", "<NA>": "<NA>", "1.#IND": "1.#IND", "-1.#QNAN": "-1.#QNAN", "None": "None",
          "none": "none", "space": " ", "zero": 0, "err_NA": err("#N/A"), "err_DIV0": err("#DIV/0!"),
          "err_NAME": err("#NAME?"), "#DIV/0!_text": "#DIV/0!", "err_empty": X(' t="e"', "")}
    files = {k: put(xlsx([("Sheet1", [["k", "v"], ["a", v], ["b", 2]])])) for k, v in na.items()}
    all_pairs(cases, files, data_rule(), "na")
    # the same in a text column and in the header
    files = {k: put(xlsx([("Sheet1", [["k", "v"], ["a", v], ["b", "x"]])])) for k, v in na.items()
             if k in ("blank", "NA", "nan", "None", "err_DIV0", "#DIV/0!_text", "empty_str", "err_NA")}
    all_pairs(cases, files, data_rule(), "na text")
    files = {k: put(xlsx([("Sheet1", [["k", v], ["a", 1], ["b", 2]])])) for k, v in na.items()
             if k in ("blank", "NA", "nan", "None", "err_DIV0", "empty_str", "err_NA", "zero")}
    all_pairs(cases, files, data_rule(), "na header")

    # dtype inference: one column, two data rows
    dt = {"ints": [1, 2], "floats": [1.5, 2.0], "int_floats": [num("1.0"), num("2.0")], "num_str": ["1", "2"],
          "num_str_sp": [" 1", "2 "], "float_str": ["1.5", "2"], "exp_str": ["1e0", "2E0"], "lead0_str": ["01", "002"],
          "mixed_num_str": [1, "2"], "mixed_x": [1, "x"], "mixed_x_str": ["1", "x"], "bools": [True, False],
          "bool_str": ["True", "False"], "bool_upper": ["TRUE", "FALSE"], "bool_lower": ["true", "false"],
          "bool_int": [True, 0], "int_bool": [1, False], "bool_str_int": ["True", 0], "bool_x": [True, "x"],
          "ones": [1, 0], "one_blank": [1, None], "onef_blank": [num("1.0"), None], "bool_blank": [True, None],
          "str_blank": ["1", None], "inf_str": ["inf", "2"], "comma_str": ["1,000", "2"], "hex_str": ["0x1", "2"],
          "neg0": [num("-0"), 2], "sci_num": [num("1E0"), num("2")], "yes_no": ["yes", "no"], "t_f": ["t", "f"],
          "date_str": ["2024-01-02", "2024-01-03"], "floats4": [1.00004, 2], "floats5": [1.000049, 2],
          "floats_rnd": [1.00005, 2]}
    files = {k: put(xlsx([("Sheet1", [["v"], [v[0]], [v[1]]])])) for k, v in dt.items()}
    all_pairs(cases, files, data_rule(), "dtype")
    for p in (0, 2, 6):
        sub = {k: files[k] for k in ("floats4", "floats5", "floats_rnd", "ints", "int_floats", "float_str")}
        all_pairs(cases, sub, data_rule(precision=p), "dtype precision %d" % p)

    # blank rows and columns
    bl = {
        "base": [["k", "v"], ["a", 1], ["b", 2]],
        "lead_row": [(2, ["k", "v"]), (3, ["a", 1]), (4, ["b", 2])],
        "lead_row_el": [(1, []), (2, ["k", "v"]), (3, ["a", 1]), (4, ["b", 2])],
        "lead_two": [(3, ["k", "v"]), (4, ["a", 1]), (5, ["b", 2])],
        "inside": [(1, ["k", "v"]), (2, ["a", 1]), (4, ["b", 2])],
        "inside_el": [(1, ["k", "v"]), (2, ["a", 1]), (3, []), (4, ["b", 2])],
        "inside_empty_str": [(1, ["k", "v"]), (2, ["a", 1]), (3, ["", ""]), (4, ["b", 2])],
        "after_header": [(1, ["k", "v"]), (3, ["a", 1]), (4, ["b", 2])],
        "trailing": [(1, ["k", "v"]), (2, ["a", 1]), (3, ["b", 2]), (6, [X()])],
        "trailing_str": [(1, ["k", "v"]), (2, ["a", 1]), (3, ["b", 2]), (4, ["", ""])],
        "lead_col": [[None, "k", "v"], [None, "a", 1], [None, "b", 2]],
        "gap_col": [["k", None, "v"], ["a", None, 1], ["b", None, 2]],
        "short_row": [["k", "v"], ["a"], ["b", 2]],
        "one": [["k"], ["a"], ["b"]],
        "one_inside": [(1, ["k"]), (2, ["a"]), (4, ["b"])],
        "one_lead": [(2, ["k"]), (3, ["a"]), (4, ["b"])],
        "one_space": [(1, ["k"]), (2, ["a"]), (3, [" "]), (4, ["b"])],
        "one_err": [(1, ["k"]), (2, ["a"]), (3, [err("#DIV/0!")]), (4, ["b"])],
        "one_na": [(1, ["k"]), (2, ["a"]), (3, ["NA"]), (4, ["b"])],
        "header_only": [["k", "v"]],
        "empty": [],
    }
    files = {k: put(xlsx([("Sheet1", v)])) for k, v in bl.items()}
    all_pairs(cases, files, data_rule(), "blank")

    # integers past 2**53 and 2**63, as openpyxl reads them (Python ints)
    bi = {"2p53": "9007199254740992", "2p53+1": "9007199254740993", "2p53+2": "9007199254740994",
          "neg2p53+1": "-9007199254740993", "2p63": "9223372036854775808", "2p63+1": "9223372036854775809",
          "2p64+1": "18446744073709551617", "1e20_int": "100000000000000000000", "1e20_exp": "1E+20",
          "1e20_dot": "100000000000000000000.0", "big_frac": "9007199254740993.5", "small": "5"}
    files = {k: put(xlsx([("Sheet1", [["v", "w"], [num(v), 1], [num("1"), 2]])])) for k, v in bi.items()}
    all_pairs(cases, files, data_rule(), "bigint")
    files = {k: put(xlsx([("Sheet1", [["v"], [num(v)], [num("0.5")]])])) for k, v in bi.items()
             if k in ("2p53", "2p53+1", "2p63", "2p63+1", "1e20_int", "1e20_exp")}
    all_pairs(cases, files, data_rule(), "bigint float col")

    # dates: serials under date formats, as openpyxl turns them into datetimes
    ds = {"d14": num("45000", 1), "d14_frac": num("45000.5", 1), "d14_sub_us": num("45000.500000001", 1),
          "d14_sub_ms": num("45000.50000001", 1), "d14_ms": num("45000.5000001", 1), "dfmt_d": num("45000", 2),
          "dfmt_d_frac": num("45000.25", 2), "d22": num("45000.5", 3), "d165": num("45000.5", 4),
          "general": num("45000"), "text_fmt": num("45000", 5), "fixed2": num("45000", 6), "iso_str": "2023-03-15",
          "t_d": X(' t="d"', "<v>2023-03-15T00:00:00</v>"), "t_d_noon": X(' t="d"', "<v>2023-03-15T12:00:00</v>"),
          "d14_60": num("60", 1), "d14_61": num("61", 1), "d14_0": num("0", 1), "d14_neg": num("-1", 1)}
    files = {k: put(xlsx([("Sheet1", [["when", "n"], [v, 1], [num("45001", 1) if k.startswith("d14") else v, 2]])]))
             for k, v in ds.items()}
    all_pairs(cases, files, data_rule(), "date")

    # phonetic runs and rich text in shared strings
    ph = {"plain": sst("<t>漢字</t>", "<t>k</t>"),
          "phonetic": sst('<t>漢字</t><rPh sb="0" eb="2"><t>カンジ</t></rPh><phoneticPr fontId="0" type="noConversion"/>', "<t>k</t>"),
          "joined": sst("<t>漢字カンジ</t>", "<t>k</t>"),
          "rich": sst('<r><t>漢</t></r><r><rPr><b/></rPr><t>字</t></r>', "<t>k</t>"),
          "empty_t": sst("<t>漢字</t>", "<t>k</t>", "<t/>"),
          "space_t": sst('<t xml:space="preserve">漢字 </t>', "<t>k</t>")}
    rows = [[X(' t="s"', "<v>1</v>"), "x"], [X(' t="s"', "<v>0</v>"), X(' t="s"', "<v>0</v>")]]
    files = {}
    for k, s in ph.items():
        data = xlsx([("Sheet1", rows)], sst_xml=s)
        files[k] = put(data)
    all_pairs(cases, files, data_rule(), "phonetic")
    for k, f in files.items():
        for ref in ("漢字", "漢字カンジ", "漢字 "):
            cases.add("compare_table", F(f), None, options={"rules": [{"type": "check_cell", "sheet_idx": 0, "coordinate": "A2",
                                                                      "props": {"value": {"method": "eq", "ref": ref}}}]},
                      note="phonetic check_cell: %s eq %s" % (k, ref))
    all_pairs(cases, files, {"rules": [{"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0",
                                        "rules": [{"range": ["A1:B2"], "type": "exact_match"}]}]}, "phonetic fuzzy")

    # workbooks openpyxl cannot load (or loads differently)
    base = put(xlsx([("Sheet1", [["k", "v"], ["a", 1], ["b", 2]])]))
    bad = {"inf": num("inf"), "neg_inf": num("-inf"), "nan": num("nan"), "NaN": num("NaN"), "word": num("abc"),
           "sst_oob": X(' t="s"', "<v>7</v>"), "sst_neg": X(' t="s"', "<v>-1</v>"), "bool_word": X(' t="b"', "<v>true</v>"),
           "bool_2": X(' t="b"', "<v>2</v>"), "t_d_bad": X(' t="d"', "<v>yesterday</v>"), "n_space": num(" 1 "),
           "n_plus": num("+1"), "n_1e400": num("1e400"), "n_empty": num(""), "t_unknown": X(' t="q"', "<v>1</v>"),
           "t_n_str": X(' t="n"', "<v>1</v>"), "t_str": X(' t="str"', "<v>1</v>"), "sst_float": X(' t="s"', "<v>0.0</v>")}
    for k, v in bad.items():
        f = put(xlsx([("Sheet1", [["k", "v"], ["a", v], ["b", 2]])]))
        for rule in ({"rules": [{"type": "sheet_name"}]}, data_rule()):
            cases.add("compare_table", F(f), F(base), options=rule, note="load %s: result vs base %s" % (k, rule["rules"][0]["type"]))
            cases.add("compare_table", F(base), F(f), options=rule, note="load %s: base vs expected %s" % (k, rule["rules"][0]["type"]))
            cases.add("compare_table", F(f), F(f), options=rule, note="load %s: self %s" % (k, rule["rules"][0]["type"]))
        cases.add("compare_table", F(f), None, options={"rules": [{"type": "check_cell", "sheet_idx": 0, "coordinate": "B2",
                                                                   "props": {"value": {"method": "eq", "ref": 1.0}}}]},
                  note="load %s: check_cell" % k)

    # read_cell_value: check_cell value and sheet_fuzzy through OSWorld's XML reader
    rc = {
        "shared": [["k", "v"], ["abc", 1]],
        "inline": [["k", "v"], [inline("<t>abc</t>"), 1]],
        "inline_space": [["k", "v"], [inline('<t xml:space="preserve">abc</t>'), 1]],
        "inline_lead": [["k", "v"], [inline('<t xml:space="preserve"> abc</t>'), 1]],
        "inline_rich": [["k", "v"], [inline("<r><t>abc</t></r>"), 1]],
        "inline_two": [["k", "v"], [inline("<r><t>ab</t></r><r><t>c</t></r>"), 1]],
        "inline_empty": [["k", "v"], [inline("<t/>"), 1]],
        "str": [["k", "v"], [X(' t="str"', "<f>A1</f><v>abc</v>"), 1]],
        "err": [["k", "v"], [err("#DIV/0!"), 1]],
        "bool": [["k", "v"], [True, 1]],
        "num_str_v": [["k", "v"], [X(' t="n"', "<v>1e3</v>"), X(' t="str"', "<v>1</v>")]],
        "no_v": [["k", "v"], [X(' t="s"', ""), X("", "<f>1+1</f>")]],
    }
    files = {k: put(xlsx([("Sheet1", v)])) for k, v in rc.items()}
    # an empty <t/> in sharedStrings: read_cell_value's join fails, and
    # every shared string then reads as missing
    files["sst_empty_t"] = put(xlsx([("Sheet1", [[X(' t="s"', "<v>0</v>"), X(' t="s"', "<v>1</v>")],
                                                 [X(' t="s"', "<v>2</v>"), 1]])], sst_xml=sst("<t>k</t>", "<t>v</t>", "<t>abc</t>", "<t/>")))
    files["sst_empty_si"] = put(xlsx([("Sheet1", [[X(' t="s"', "<v>0</v>"), X(' t="s"', "<v>1</v>")],
                                                  [X(' t="s"', "<v>2</v>"), 1]])], sst_xml=sst("<t>k</t>", "<t>v</t>", "<t>abc</t>", "")))
    # sheet{sheetId}.xml: the first sheet has sheetId 2 and lives in sheet1.xml
    two = [("Data", [["k", "v"], ["abc", 1]]), ("Other", [["k", "v"], ["xyz", 2]])]
    files["ids_swapped"] = put(xlsx(two, sheet_ids=[2, 1]))
    files["ids_far"] = put(xlsx(two, sheet_ids=[5, 6]))
    files["ids_files"] = put(xlsx(two, files=["data.xml", "other.xml"]))
    files["ids_plain"] = put(xlsx(two))
    files["no_r"] = put(xlsx([("Sheet1", [["k", "v"], ["abc", 1]])]).replace(b'<c r="A2"', b'<c'))
    for k, f in sorted(files.items()):
        for coord, ref in (("A2", "abc"), ("A2", " abc"), ("B2", 1.0), ("B2", 1), ("A2", "xyz"), ("a2", "abc"), ("$A$2", "abc"),
                           ("A2", None), ("A2", True), ("A2", "#DIV/0!"), ("A1", "k"), ("B2", "1"), ("A2", 1000.0)):
            cases.add("compare_table", F(f), None, options={"rules": [{"type": "check_cell", "sheet_idx": 0, "coordinate": coord,
                                                                      "props": {"value": {"method": "eq", "ref": ref}}}]},
                      note="read_cell_value %s: %s eq %r" % (k, coord, ref))
        cases.add("compare_table", F(f), None, options={"rules": [{"type": "check_cell", "sheet_idx": "RNOther", "coordinate": "A2",
                                                                  "props": {"value": {"method": "eq", "ref": "xyz"}}}]},
                  note="read_cell_value %s: Other!A2" % k)
    fz = {k: files[k] for k in ("shared", "inline", "inline_space", "inline_lead", "inline_rich", "inline_empty", "str", "err",
                                "bool", "sst_empty_t", "ids_swapped", "ids_plain", "ids_far", "no_r")}
    for rng in (["A1:B2"], "A1:B2", ["A2"], ["B2:A1"], ["a1:b2"], ["A1:B2 C3"], "A1:B2 C3", ["A:A"], ["1:2"], ["Sheet1!A1:B2"],
                ["$A$1:$B$2"], ["A1:B2", "A2"], [], ["A1:"], ["ZZZZ1"]):
        opts = {"rules": [{"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0",
                           "rules": [{"range": rng, "type": "exact_match"}]}]}
        for a in sorted(fz):
            for b in sorted({a, "shared", "inline"}):
                cases.add("compare_table", F(fz[a]), F(fz[b]), options=opts, note="fuzzy %s: %s vs %s" % (rng, a, b))

    # freeze: (state, xSplit, ySplit), topLeftCell only for other panes
    def pane(attrs):
        return '<sheetViews><sheetView workbookViewId="0"><pane %s/></sheetView></sheetViews>' % attrs
    fr = {"none": "", "B2": pane('xSplit="1" ySplit="1" topLeftCell="B2" activePane="bottomRight" state="frozen"'),
          "B2_scrolled": pane('xSplit="1" ySplit="1" topLeftCell="D9" activePane="bottomRight" state="frozen"'),
          "B2_float": pane('xSplit="1.0" ySplit="1.0" topLeftCell="B2" activePane="bottomRight" state="frozen"'),
          "B2_frozenSplit": pane('xSplit="1" ySplit="1" topLeftCell="B2" activePane="bottomRight" state="frozenSplit"'),
          "A2": pane('ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"'),
          "A2_scrolled": pane('ySplit="1" topLeftCell="A40" activePane="bottomLeft" state="frozen"'),
          "split": pane('xSplit="1200" ySplit="600" topLeftCell="B2" activePane="bottomRight"'),
          "split_scrolled": pane('xSplit="1200" ySplit="600" topLeftCell="C3" activePane="bottomRight"'),
          "split_state": pane('xSplit="1200" ySplit="600" topLeftCell="B2" activePane="bottomRight" state="split"'),
          "frozen_no_tl": pane('xSplit="1" ySplit="1" state="frozen"')}
    files = {k: put(xlsx([("Sheet1", [["k", "v"], ["a", 1]], "", v)])) for k, v in fr.items()}
    all_pairs(cases, files, {"rules": [{"type": "freeze", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}]}, "freeze")

    # data validation: openpyxl's attributes (errorStyle None when absent)
    def dv(attrs, f1='"a,b"'):
        return ('<dataValidations count="1"><dataValidation %s><formula1>%s</formula1></dataValidation></dataValidations>'
                % (attrs, escape(f1)))
    dvs = {"list": dv('type="list" allowBlank="1" sqref="B2:B9"'),
           "list_stop": dv('type="list" allowBlank="1" errorStyle="stop" sqref="B2:B9"'),
           "list_warn": dv('type="list" errorStyle="warning" showErrorMessage="1" sqref="B2:B9"'),
           "list_two_ranges": dv('type="list" sqref="C1 B2:B9"'),
           "whole": dv('type="whole" operator="between" sqref="B2:B9"', "0")}
    files = {k: put(xlsx([("Sheet1", [["k", "v"], ["a", 1]], v)])) for k, v in dvs.items()}
    props = [{"errorStyle": {"method": "eq", "ref": "stop"}}, {"errorStyle": {"method": "eq", "ref": None}},
             {"errorStyle": {"method": "eq", "ref": "warning"}}, {"type": {"method": "eq", "ref": "list"}},
             {"operator": {"method": "eq", "ref": None}}, {"operator": {"method": "eq", "ref": "between"}},
             {"sqref": {"method": "eq", "ref": "B2:B9 C1"}}, {"sqref": {"method": "eq", "ref": "B2:B9"}},
             {"ranges": {"method": "spreadsheet_range", "ref": ["B2:B3", "B1:B20"]}},
             {"showErrorMessage": {"method": "eq", "ref": False}}, {"showDropDown": {"method": "eq", "ref": None}},
             {"allowBlank": {"method": "eq", "ref": True}}, {"formula1": {"method": "eq", "ref": '"a,b"'}},
             {"imeMode": {"method": "eq", "ref": None}}]
    for k, f in sorted(files.items()):
        for p in props:
            cases.add("compare_table", F(f), None, options={"rules": [{"type": "data_validation", "sheet_idx": 0, "dv_props": [p]}]},
                      note="dv %s: %s" % (k, list(p)[0]))

    # chart "direction" on charts that are not bar charts
    import openpyxl
    from openpyxl.chart import AreaChart, BarChart, BarChart3D, LineChart, PieChart, Reference, ScatterChart
    charts = {}
    for k, cls in (("bar", BarChart), ("bar3d", BarChart3D), ("line", LineChart), ("pie", PieChart), ("area", AreaChart),
                   ("scatter", ScatterChart)):
        wb = openpyxl.Workbook()
        ws = wb.active
        for r in [["c", "n"], ["a", 1], ["b", 2], ["c", 3]]:
            ws.append(r)
        ch = cls()
        ch.add_data(Reference(ws, min_col=2, min_row=1, max_row=4), titles_from_data=True)
        ch.set_categories(Reference(ws, min_col=1, min_row=2, max_row=4))
        ws.add_chart(ch, "E2")
        b = io.BytesIO()
        wb.save(b)
        charts[k] = b.getvalue()
    # a bar chart without its barDir element
    zin = zipfile.ZipFile(io.BytesIO(charts["bar"]))
    b = io.BytesIO()
    zout = zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED)
    for n in zin.namelist():
        d = zin.read(n)
        if n.startswith("xl/charts/chart"):
            import re
            d = re.sub(rb"<c:barDir [^>]*/>", b"", d)
        zout.writestr(n, d)
    zout.close()
    charts["bar_nodir"] = b.getvalue()
    files = {k: put(v) for k, v in charts.items()}
    for cp in (["direction"], ["type", "direction"], ["type"]):
        all_pairs(cases, files, {"rules": [{"type": "chart", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "chart_props": cp}]},
                  "chart %s" % "+".join(cp))


def fam_sheet_print(cases, store, tasks):
    """sheet_print reads <book>-<sheet>.csv through OSWorld's encoding
    fallback (UTF-8, else Latin-1)."""
    book = store.put(xlsx([("Sheet1", [["k"], ["a"]])]), "xlsx")
    texts = {"utf8": "Name,City\nÉmile,Zürich\n".encode("utf-8"),
             "latin1": "Name,City\nÉmile,Zürich\n".encode("latin-1"),
             "latin1_lower": "name,city\némile,zürich\n".encode("latin-1"),
             "utf8_lower": "name,city\némile,zürich\n".encode("utf-8"),
             "latin1_nbsp": b"Name,City\xa0\n\xc9mile,Z\xfcrich\n",
             "latin1_nel": b"Name,City\x85\xc9mile,Z\xfcrich\n",
             "utf8_nel": "Name,City\u0085Émile,Zürich\n".encode("utf-8"),
             "two_lines": "Name,City\nÉmile,Zürich\n".encode("utf-8").replace(b"\n", b"\r\n"),
             "cp1252": "Name,City\n“Émile”,Zürich\n".encode("cp1252"),
             "utf8_quotes": "Name,City\n“Émile”,Zürich\n".encode("utf-8"),
             "bom": "Name,City\nÉmile,Zürich\n".encode("utf-8-sig"),
             "bad_utf8": b"Name,City\n\xc3(mile,Z\xfcrich\n"}
    csvs = {k: store.put(v, "csv") for k, v in texts.items()}
    for a, b in itertools.product(sorted(csvs), repeat=2):
        for ic in (False, True):
            r = {"type": "sheet_print", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"}
            if ic:
                r["ignore_case"] = True
            cases.add("compare_table", F(book), F(book), options={"rules": [r]},
                      extra={"result-Sheet1.csv": csvs[a], "expected-Sheet1.csv": csvs[b]},
                      note="sheet_print %s vs %s%s" % (a, b, " ignore_case" if ic else ""))


def fam_junk(cases, store, tasks):
    """Every metric the task files name, called with arguments of the
    wrong kind or pointing nowhere: what OSWorld raises on (or not)."""
    # infeasible is the harness's verdict on a task, not a metric function
    names = sorted(set(u["func"] for u in tasks["uses"]) - {"infeasible"})
    shapes = [("none", None, None), ("ints", 7, 7), ("dict_list", {"a": 1}, [1, "x"]), ("empty", "", ""),
              ("missing", "/nonexistent/result.xlsx", "/nonexistent/expected.xlsx"), ("list_none", [None], None)]
    for m in names:
        # a metric the tasks never give an expected value is called with
        # the result alone, as OSWorld's harness calls it
        alone = all(u["expected"] is None for u in tasks["uses"] if u["func"] == m)
        for note, res, exp in shapes:
            if alone:
                cases.add(m, res, None, note="junk %s" % note, args="result_only")
            else:
                cases.add(m, res, exp, note="junk %s" % note)


def fam_pdf_images(cases, store, tasks):
    """compare_pdf_images on PDFs with embedded images (Pillow writes one
    image a page: JPEG for RGB, Flate for L and P)."""
    from families import _scene

    def pdf(*ims):
        b = io.BytesIO()
        ims[0].save(b, "PDF", save_all=True, append_images=list(ims[1:]), resolution=72)
        return store.put(b.getvalue(), "pdf")
    base, other = _scene(), _scene(seed=7)
    files = {"one": pdf(base), "one_again": pdf(base.copy()), "brighter": pdf(_scene(bright=1.1)),
             "shifted": pdf(_scene(shift=3)), "other": pdf(other), "two": pdf(base, other), "two_swapped": pdf(other, base),
             "grey": pdf(base.convert("L")), "palette": pdf(base.convert("P")), "mirror": pdf(_scene(mirror=True)),
             "big": pdf(base.resize((384, 256))), "two_same": pdf(base, base)}
    for a, b in itertools.product(sorted(files), repeat=2):
        cases.add("compare_pdf_images", F(files[a]), F(files[b]), note="pdfimg %s vs %s" % (a, b))


def fam_text_encoding(cases, store, tasks):
    """compare_text_file and diff_text_file on text that is not UTF-8:
    Python's open() raises UnicodeDecodeError."""
    files = {"utf8": "Zürich\nline two\n".encode("utf-8"), "latin1": "Zürich\nline two\n".encode("latin-1"),
             "bad_tail": b"line one\nline two \xff\n", "bom": "Zürich\nline two\n".encode("utf-8-sig"),
             "ascii": b"Zurich\nline two\n"}
    refs = {k: store.put(v, "txt") for k, v in files.items()}
    for m in ("compare_text_file", "diff_text_file"):
        for a, b in itertools.product(sorted(refs), repeat=2):
            cases.add(m, F(refs[a]), F(refs[b]), note="encoding %s vs %s" % (a, b))


def fam_odt(cases, store, tasks):
    """compare_docx_files on .odt: odfpy's load() reads styles.xml too, so
    headers and footers are paragraphs (after the body's)."""
    from odf.opendocument import OpenDocumentText
    from odf.style import Footer, Header, MasterPage, PageLayout
    from odf.text import P

    def odt(body, header=None, footer=None):
        doc = OpenDocumentText()
        if header is not None or footer is not None:
            pl = PageLayout(name="pl")
            doc.automaticstyles.addElement(pl)
            mp = MasterPage(name="Standard", pagelayoutname=pl)
            if header is not None:
                h = Header()
                h.addElement(P(text=header))
                mp.addElement(h)
            if footer is not None:
                f = Footer()
                f.addElement(P(text=footer))
                mp.addElement(f)
            doc.masterstyles.addElement(mp)
        for t in body:
            doc.text.addElement(P(text=t))
        b = io.BytesIO()
        doc.write(b)
        return store.put(b.getvalue(), "odt")
    files = {"plain": odt(["one", "two"]), "header": odt(["one", "two"], header="Title"),
             "header2": odt(["one", "two"], header="Other"), "footer": odt(["one", "two"], footer="Page"),
             "both": odt(["one", "two"], header="Title", footer="Page"), "body_header": odt(["one", "two", "Title"]),
             "moved": odt(["Title", "one", "two"])}
    opts = [{}, {"ignore_order": True}, {"delete_empty_lines": True}, {"ignore_blanks": False}]
    for a, b in itertools.product(sorted(files), repeat=2):
        for o in opts:
            cases.add("compare_docx_files", F(files[a], "result.odt"), F(files[b], "expected.odt"), options=o,
                      note="odt %s vs %s %s" % (a, b, json.dumps(o, sort_keys=True)))
