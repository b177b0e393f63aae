#!/usr/bin/python3
"""Makes the office fixtures of runner/task's metric tests.

Run from this folder with Debian's python3-openpyxl and python3-docx and
LibreOffice installed: ./make.py. Each fixture is a base document and
variants that change one property each; LibreOffice converts some of
them (xlsx resaved by Calc, PDFs exported by Writer).
"""
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

import openpyxl
from openpyxl.chart import BarChart, LineChart, Reference
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.datavalidation import DataValidation
import docx
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK
from docx.shared import Pt, RGBColor


def book(**change):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = change.get("title", "Sheet1")
    rows = [["Name", "Qty", "Price"], ["apple", 3, 1.25], ["pear", 5, 0.5], ["plum", 7, 2.125]]
    if change.get("value"):
        rows[2][1] = 6
    if change.get("case"):
        rows[1][0] = "APPLE"
    if change.get("round"):
        rows[3][2] = 2.12504
    for r in rows:
        ws.append(r)
    ws["E1"] = "Total"
    ws["E2"] = "=SUM(B2:B4)"
    ws["A1"].font = Font(bold=not change.get("bold_off", False), color="FF0000FF")
    ws["B1"].fill = PatternFill("solid", fgColor="FFFFFF00" if not change.get("fill") else "FF00FF00")
    if change.get("freeze"):
        ws.freeze_panes = "B2"
    if change.get("zoom"):
        ws.sheet_view.zoomScale = change["zoom"]
    if change.get("hidden"):
        ws.row_dimensions[3].hidden = True
    dv = DataValidation(type="list", formula1='"Pass,Fail,Held"' if not change.get("dv") else '"Pass,Fail"')
    dv.add("D2:D29")
    ws.add_data_validation(dv)
    chart = LineChart() if change.get("line") else BarChart()
    chart.title = change.get("chart_title", "Stock")
    chart.x_axis.title = "Fruit"
    chart.y_axis.title = "Count"
    chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=4), titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, min_row=2, max_row=4))
    ws.add_chart(chart, "G2")
    s2 = wb.create_sheet("Sheet2")
    s2.append(["k", "v"])
    s2.append(["a", 1])
    return wb


def png(w, h, rgb):
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def document(path, **change):
    d = docx.Document()
    title = d.add_paragraph("Quarterly report")
    if not change.get("left"):
        title.alignment = WD_ALIGN_PARAGRAPH.CENTER
    body = d.add_paragraph("Sales grew in " + ("May" if change.get("text") else "April") + ".")
    body.paragraph_format.line_spacing = 2.0 if change.get("spacing") else 1.5
    p = d.add_paragraph()
    r = p.add_run("Italic words")
    r.italic = True
    r.font.size = Pt(12 if change.get("size") else 14)
    r.font.name = "Liberation Serif"
    p.add_run(" and H")
    sub = p.add_run("2")
    sub.font.subscript = not change.get("nosub", False)
    sub.font.name = "Liberation Serif"
    tabs = d.add_paragraph("Name\tValue")
    tabs.paragraph_format.tab_stops.add_tab_stop(Pt(200 if change.get("tab") else 144))
    t = d.add_table(rows=2, cols=2)
    for i, (a, b) in enumerate([("apple", "orange"), ("egg", "bread" if not change.get("cell") else "toast")]):
        for j, w in enumerate((a, b)):
            run = t.cell(i, j).paragraphs[0].add_run(w)
            red = w[0] in "aeiou"
            if change.get("color") and w == "bread":
                red = True
            run.font.color.rgb = RGBColor(255, 0, 0) if red else RGBColor(0, 0, 255)
    if not change.get("nobreak"):
        d.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    img = os.path.join(tempfile.mkdtemp(), "dot.png")
    with open(img, "wb") as f:
        f.write(png(4, 4, (0, 128, 255) if not change.get("image") else (255, 0, 0)))
    d.add_picture(img)
    d.add_paragraph("References")
    d.add_paragraph("Smith, J. Fruit markets. 2020." if not change.get("ref") else "Smith, J. Vegetable markets. 2021.")
    d.add_paragraph("Doe, A. Pricing. 2019.")
    last = d.add_paragraph()
    lr = last.add_run("Struck out")
    lr.font.strike = not change.get("nostrike", False)
    footer = d.sections[0].footer.paragraphs[0]
    footer.text = "Page " if change.get("nopage") else ""
    if not change.get("nopage"):
        # a PAGE field as Writer writes it
        from docx.oxml import OxmlElement
        from docx.oxml.ns import qn
        for kind, text in (("begin", None), (None, " PAGE "), ("separate", None), (None, "1"), ("end", None)):
            run = footer.add_run()
            if kind:
                fc = OxmlElement("w:fldChar")
                fc.set(qn("w:fldCharType"), kind)
                run._r.append(fc)
            elif text == " PAGE ":
                it = OxmlElement("w:instrText")
                it.text = text
                run._r.append(it)
            else:
                run.text = text
    d.save(path)


def soffice(fmt, src, out):
    subprocess.run(["soffice", "--headless", "--convert-to", fmt, "--outdir", out, src],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def main():
    variants = {
        "base": {}, "value": {"value": True}, "case": {"case": True}, "round": {"round": True},
        "sheetname": {"title": "Data"}, "bold": {"bold_off": True}, "fill": {"fill": True},
        "freeze": {"freeze": True}, "zoom": {"zoom": 300}, "hidden": {"hidden": True},
        "dv": {"dv": True}, "line": {"line": True}, "charttitle": {"chart_title": "Stock 2"},
    }
    for name, ch in variants.items():
        book(**ch).save("table_%s.xlsx" % name)
    for name, lines in {"base": "Name,Qty\napple,3\n", "case": "NAME,Qty\nApple,3\n", "value": "Name,Qty\napple,4\n"}.items():
        with open("table_%s-Sheet1.csv" % name, "w") as f:
            f.write(lines + "\n\n")
    # Tasks' workbooks are saved by Calc (shared strings, cached formula
    # results): every variant goes through it once; the openpyxl original
    # of the base is kept (inline strings, no cached results), and so are
    # the freeze and zoom variants, whose view settings a headless
    # conversion drops.
    shutil.copy("table_base.xlsx", "table_openpyxl.xlsx")
    tmp = tempfile.mkdtemp()
    names = ["table_%s.xlsx" % n for n in variants if n not in ("freeze", "zoom")]
    subprocess.run(["soffice", "--headless", "--convert-to", "xlsx", "--outdir", tmp] + names,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    for n in names:
        shutil.copy(os.path.join(tmp, n), n)

    docs = {
        "base": {}, "text": {"text": True}, "spacing": {"spacing": True}, "left": {"left": True},
        "size": {"size": True}, "nosub": {"nosub": True}, "tab": {"tab": True}, "cell": {"cell": True},
        "color": {"color": True}, "nobreak": {"nobreak": True}, "image": {"image": True},
        "ref": {"ref": True}, "nostrike": {"nostrike": True}, "nopage": {"nopage": True},
    }
    for name, ch in docs.items():
        document("doc_%s.docx" % name, **ch)
    for name in ("base", "text"):
        soffice("pdf", "doc_%s.docx" % name, ".")
        os.replace("doc_%s.pdf" % name, "pdf_%s.pdf" % name)
    soffice("odt", "doc_base.docx", ".")


if __name__ == "__main__":
    main()
