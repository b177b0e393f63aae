"""The "pdftext" family: compare_pdfs on PDFs whose text PyMuPDF's
page.get_text() reads in its own way (stream order rather than top to
bottom, lines split at large gaps, ligatures and no-break spaces kept,
right-to-left text in visual order, characters cut by the page's edge left
out, a page's /Rotate undone), so that a reader that is not MuPDF's would
score them differently.

Two kinds of file: PDFs written here operator by operator (the content
stream says exactly where each word goes) and PDFs Chromium prints from
small HTML pages (its own fonts and glyph positioning, as a browser's "Save
as PDF" writes them). Each is compared with itself, with a twin that holds
its words in plain reading order (one line each, printed by Chromium), and
with another file's twin.
"""

import io
import itertools
import os
import shutil
import subprocess
import tempfile
import zlib

from gen import F

# ---------------------------------------------------------------- raw PDFs

HELVETICA = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
# codes 1 and 2 are the fi and fl ligature glyphs, 3 and 4 a no-break and
# a thin space
LIGATURES = (b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding"
             b" /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /fl /nbspace /uni2009] >> >>")


def raw_pdf(pages):
    """A PDF of PAGES, each a dict: "ops" (the content stream, bytes),
    optional "box" (the MediaBox, default 300 x 200) and "rotate"."""
    objs = []

    def add(body):
        objs.append(body)
        return len(objs)
    catalog = add(None)
    tree = add(None)
    f1 = add(HELVETICA)
    f2 = add(LIGATURES)
    kids = []
    for p in pages:
        data = zlib.compress(p["ops"])
        content = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream")
        box = p.get("box", (0, 0, 300, 200))
        extra = b" /Rotate %d" % p["rotate"] if "rotate" in p else b""
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [%d %d %d %d] /Contents %d 0 R"
                        b" /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >>%s >>"
                        % ((tree,) + tuple(box) + (content, f1, f2, extra))))
    objs[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    objs[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, catalog, xref)
    return bytes(out)


def text(x, y, s, size=11, font=b"F1", tm=None):
    """The operators that show S at (X, Y), or with text matrix TM."""
    if isinstance(s, str):
        s = s.encode("cp1252")
    s = s.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    m = tm or (1, 0, 0, 1, x, y)
    return b"BT /%s %g Tf %g %g %g %g %g %g Tm (%s) Tj ET\n" % ((font, size) + tuple(m) + (s,))


def raw_fixtures():
    """name -> (PDF bytes, the words in reading order, one string a line)."""
    fx = {}
    # two words on one baseline far apart, a line spaced out by Tw, words
    # set apart by TJ kerning with no space character between them
    fx["gaps"] = (raw_pdf([{"ops": text(20, 160, "Name") + text(220, 160, "Value")
                            + b"BT /F1 11 Tf 20 140 Td 30 Tw (Total due 42) Tj ET\n"
                            + b"BT /F1 11 Tf 20 120 Td [(Kerned)-3000(apart)-400(words)] TJ ET\n"}]),
                  ["Name Value", "Total due 42", "Kerned apart words"])
    left = ["Left one", "Left two", "Left three"]
    right = ["Right one", "Right two", "Right three"]
    rows = b"".join(text(20, 160 - 16 * i, l) + text(170, 160 - 16 * i, r) for i, (l, r) in enumerate(zip(left, right)))
    cols = b"".join(text(20, 160 - 16 * i, l) for i, l in enumerate(left)) + b"".join(
        text(170, 160 - 16 * i, r) for i, r in enumerate(right))
    fx["columns_rows"] = (raw_pdf([{"ops": rows}]), left + right)
    fx["columns"] = (raw_pdf([{"ops": cols}]), left + right)
    # a footer and a header written before the body they frame
    fx["footer_first"] = (raw_pdf([{"ops": text(120, 15, "Page 1 of 1", 8) + text(20, 185, "Quarterly report", 9)
                                    + text(20, 150, "Body text of the report.") + text(20, 134, "It ends here.")}]),
                          ["Quarterly report", "Body text of the report.", "It ends here.", "Page 1 of 1"])
    fx["hyphen"] = (raw_pdf([{"ops": text(20, 160, "This is an exam-") + text(20, 144, "ple of hyphen-")
                              + text(20, 128, "ation across lines.")}]),
                    ["This is an example of hyphenation across lines."])
    # text turned a quarter and upside down next to upright text
    fx["rotated_text"] = (raw_pdf([{"ops": text(0, 0, "Upright first", tm=(1, 0, 0, 1, 60, 150))
                                    + text(0, 0, "Turned up", tm=(0, 1, -1, 0, 40, 30))
                                    + text(0, 0, "Upside down", tm=(-1, 0, 0, -1, 250, 60))
                                    + text(0, 0, "Upright last", tm=(1, 0, 0, 1, 60, 100))}]),
                          ["Upright first", "Turned up", "Upside down", "Upright last"])
    fx["rotated_page"] = (raw_pdf([{"ops": text(20, 160, "A page turned") + text(20, 144, "by its Rotate key")
                                    + text(200, 40, "corner"), "rotate": 90}]),
                          ["A page turned", "by its Rotate key", "corner"])
    fx["ligature"] = (raw_pdf([{"ops": text(20, 160, b"\x01nal \x02ow of o\x01ce", font=b"F2")
                                + text(20, 144, "final flow of office")}]),
                      ["final flow of office", "final flow of office"])
    fx["whitespace"] = (raw_pdf([{"ops": text(20, 160, b"no\x03break\x04space", font=b"F2") + text(20, 144, "trailing   ")
                                  + text(20, 128, "   ") + text(20, 112, "en\u2013dash")}]),
                        ["no break space", "trailing", "en-dash"])
    # a line that runs over the right edge: the last letters are cut
    fx["edge"] = (raw_pdf([{"ops": text(20, 160, "Inside the page") + text(240, 120, "Runs over the edge")}]),
                  ["Inside the page", "Runs over the edge"])
    fx["blank_middle"] = (raw_pdf([{"ops": text(20, 160, "Page one")}, {"ops": b""},
                                   {"ops": text(20, 160, "Page three")}]),
                          ["Page one", "Page three"])
    # fake bold: the same word drawn twice, the second a hair to the right
    fx["overdrawn"] = (raw_pdf([{"ops": text(20, 160, "Bold") + text(20.3, 160, "Bold") + text(60, 160, "and plain")}]),
                       ["Bold and plain"])
    # a small caption above a big title, written after it
    fx["sizes"] = (raw_pdf([{"ops": text(20, 120, "Big title", 24) + text(20, 160, "small caption", 6)
                             + text(20, 90, "body", 11) + text(100, 90, "sub", 6)}]),
                   ["small caption", "Big title", "body sub"])
    return fx


# ---------------------------------------------------------------- Chromium

HTML = {
    "html_columns": ("<div style='column-count:2;width:560px'>" + " ".join(
        "Word%d" % i for i in range(1, 121)) + "</div>", [" ".join("Word%d" % i for i in range(1, 121))]),
    "html_table": ("<table border=1 cellpadding=6><tr><th>Item</th><th>Qty</th><th>Price</th></tr>"
                   "<tr><td>Apples</td><td>3</td><td>1.20</td></tr><tr><td>Pears</td><td>12</td><td>0.45</td></tr>"
                   "</table>", ["Item Qty Price", "Apples 3 1.20", "Pears 12 0.45"]),
    "html_rtl": ("<p dir=rtl>שלום עולם, זה מבחן</p><p dir=rtl>مرحبا بالعالم</p><p>Mixed שלום and English</p>",
                 ["שלום עולם, זה מבחן", "مرحبا بالعالم", "Mixed שלום and English"]),
    "html_cjk": ("<p>中文测试文本，这是第一段。</p><p>日本語のテキストです。</p><p>ASCII 与中文 mixed</p>",
                 ["中文测试文本，这是第一段。", "日本語のテキストです。", "ASCII 与中文 mixed"]),
    "html_pages": ("<h1>Chapter one</h1><p>First page text, with a <b>bold</b> word and an office ﬁle.</p>"
                   "<h1 style='page-break-before:always'>Chapter two</h1><p>Second page text.</p>",
                   ["Chapter one", "First page text, with a bold word and an office file.", "Chapter two",
                    "Second page text."]),
    "html_spaces": ("<pre>Label:        value\nKey\tTabbed</pre><p>Justified text that is spread "
                    "out <span style='letter-spacing:6px'>letters</span> and <span style='word-spacing:40px'>"
                    "wide words here</span>.</p>", ["Label: value", "Key Tabbed",
                                                    "Justified text that is spread out letters and wide words here."]),
}


def chromium_pdfs(pages, work):
    """name -> PDF bytes, each HTML page printed by headless Chromium."""
    out = {}
    profile = tempfile.mkdtemp(prefix="oracle-chromium-")
    try:
        for name, body in pages.items():
            src = os.path.join(work, name + ".html")
            dst = os.path.join(work, name + ".pdf")
            with open(src, "w", encoding="utf-8") as f:
                f.write("<!doctype html><html><head><meta charset=utf-8><style>@page{size:A5;margin:15mm}"
                        "body{font:12pt 'DejaVu Sans','WenQuanYi Micro Hei',sans-serif}</style></head><body>"
                        + body + "</body></html>")
            subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                            "--user-data-dir=" + profile, "--print-to-pdf=" + dst, "file://" + src],
                           capture_output=True, timeout=120)
            with open(dst, "rb") as f:
                out[name] = f.read()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return out


def fixtures():
    """name -> (PDF bytes, its twin's PDF bytes). A twin is Chromium's print
    of the words in reading order, one line each."""
    from xml.sax.saxutils import escape
    fx = raw_fixtures()
    pages = {k: v[0] for k, v in HTML.items()}
    lines = {k: v[1] for k, v in list(fx.items()) + list(HTML.items())}
    for k, ls in lines.items():
        pages["twin_" + k] = "".join("<div>%s</div>" % escape(l) for l in ls)
    work = tempfile.mkdtemp(prefix="oracle-pdftext-")
    try:
        printed = chromium_pdfs(pages, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = {k: printed[k] for k in HTML}
    out.update({k: pdf for k, (pdf, _) in fx.items()})
    return {k: (pdf, printed["twin_" + k]) for k, pdf in out.items()}


def fam_pdf_text(cases, store, tasks):
    fx = fixtures()
    names = sorted(fx)
    files = {k: F(store.put(pdf, "pdf")) for k, (pdf, _) in fx.items()}
    twins = {k: F(store.put(twin, "pdf")) for k, (_, twin) in fx.items()}
    for i, k in enumerate(names):
        other = names[(i + 1) % len(names)]
        cases.add("compare_pdfs", files[k], files[k], note="pdftext %s vs itself" % k)
        cases.add("compare_pdfs", files[k], twins[k], note="pdftext %s vs its plain twin" % k)
        cases.add("compare_pdfs", twins[k], files[k], note="pdftext plain twin vs %s" % k)
        cases.add("compare_pdfs", files[k], twins[other], note="pdftext %s vs %s's twin" % (k, other))
    for a, b in itertools.combinations(["columns", "columns_rows", "footer_first", "sizes", "html_table"], 2):
        cases.add("compare_pdfs", files[a], files[b], note="pdftext %s vs %s" % (a, b))
    cases.add("compare_pdfs", [files[n] for n in names[:4]], [twins[n] for n in names[:4]],
              note="pdftext lists of four vs their twins")
    # fitz.open reads what MuPDF reads: an image is a page without text, a
    # PDF is a PDF whatever its name, a text file is refused
    import PIL.Image
    b = io.BytesIO()
    PIL.Image.new("RGB", (40, 20), "white").save(b, "PNG")
    png = store.put(b.getvalue(), "png")
    txt = store.put(b"plain text, not a PDF\n", "txt")
    cases.add("compare_pdfs", F(png), F(png), note="pdftext image vs image")
    cases.add("compare_pdfs", F(png), files["gaps"], note="pdftext image vs gaps")
    cases.add("compare_pdfs", F(txt), F(txt), note="pdftext text file vs text file")
    cases.add("compare_pdfs", F(files["gaps"]["file"], "result.txt"), files["gaps"], note="pdftext gaps named .txt vs gaps")
